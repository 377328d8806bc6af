import { createHash, randomBytes } from 'node:crypto';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

export const MEDIA_NAME_RE = /^[0-9a-f]{64}\.(png|jpg|gif|webp)$/;

/**
 * Uploaded files under their content hash: identical uploads share one file and
 * a name never changes content, so it can be cached forever. Several admin
 * instances need this folder on shared storage (see docs/deployment.md).
 */
export class MediaStore {
  constructor(private readonly dir: string) {}

  async save(data: Buffer, ext: string): Promise<string> {
    const name = `${createHash('sha256').update(data).digest('hex')}.${ext}`;
    await mkdir(this.dir, { recursive: true });
    // Write then rename: a reader never sees half a file.
    const tmp = join(this.dir, `.${name}.${randomBytes(6).toString('hex')}.tmp`);
    await writeFile(tmp, data);
    await rename(tmp, join(this.dir, name));
    return name;
  }

  async read(name: string): Promise<Buffer | undefined> {
    if (!MEDIA_NAME_RE.test(name)) return undefined;
    try {
      return await readFile(join(this.dir, name));
    } catch {
      return undefined;
    }
  }
}
