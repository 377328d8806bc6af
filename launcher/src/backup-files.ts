import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { copyFile, mkdir, readdir, stat } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { MEDIA_NAME_RE } from '@adnet/admin/media-store';

/** An operator's mistake, told as it is (exit 2), as against a failure along the way. */
export class BackupInputError extends Error {}

/** 'absent', 'empty', or why the folder cannot take a backup or a restore (a file, or not empty). */
export async function folderState(dir: string): Promise<'absent' | 'empty' | 'file' | 'not-empty'> {
  try {
    return (await readdir(dir)).length === 0 ? 'empty' : 'not-empty';
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return 'absent';
    if (code === 'ENOTDIR') return 'file';
    throw e;
  }
}

/** Every file under `dir`, as paths relative to it with `/` between folders, sorted. */
export async function listFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((e) => e.isFile())
    .map((e) => relative(dir, join(e.parentPath, e.name)).split(sep).join('/'))
    .sort();
}

export async function sha256File(path: string): Promise<string> {
  const hash = createHash('sha256');
  await pipeline(createReadStream(path), hash);
  return hash.digest('hex');
}

export async function describeFiles(
  dir: string,
  paths: readonly string[],
): Promise<{ path: string; bytes: number; sha256: string }[]> {
  const out = [];
  for (const path of paths)
    out.push({ path, bytes: (await stat(join(dir, path))).size, sha256: await sha256File(join(dir, path)) });
  return out;
}

/**
 * The uploaded images, by name: a file is written under a temporary name and renamed into place
 * (media-store.ts), so every file with a media name is whole; the temporary ones are left behind.
 */
export async function copyMedia(from: string, to: string): Promise<number> {
  await mkdir(to, { recursive: true });
  let names: string[];
  try {
    names = await readdir(from);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return 0;
    throw e;
  }
  const media = names.filter((n) => MEDIA_NAME_RE.test(n));
  for (const name of media) await copyFile(join(from, name), join(to, name));
  return media.length;
}
