// The cabinet's production build, run by `pnpm start` and by the browser tests' fixture.
import { chmodSync, existsSync, mkdtempSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'vite';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
/** Where the built cabinet lives; the admin serves it under /cabinet. */
export const CABINET_DIST = join(ROOT, 'dist');
const SOURCES = [join(ROOT, 'index.html'), join(ROOT, 'src')];

function newestMtime(path: string): number {
  const st = statSync(path);
  if (!st.isDirectory()) return st.mtimeMs;
  return readdirSync(path).reduce((max, name) => Math.max(max, newestMtime(join(path, name))), st.mtimeMs);
}

/** True when dist holds a build at least as new as every source file. */
export function cabinetUpToDate(dist = CABINET_DIST): boolean {
  const index = join(dist, 'index.html');
  return existsSync(index) && statSync(index).mtimeMs >= Math.max(...SOURCES.map(newestMtime));
}

/**
 * Builds into a private folder and swaps it in, so two processes building at once (a test and
 * `pnpm start`) never serve a half-written dist; the loser of the swap drops its identical copy.
 */
export async function buildCabinet(opts: { force?: boolean } = {}): Promise<{ dir: string; built: boolean }> {
  if (!opts.force && cabinetUpToDate()) return { dir: CABINET_DIST, built: false };
  const out = mkdtempSync(join(ROOT, '.dist-'));
  chmodSync(out, 0o755);
  await build({
    root: ROOT,
    base: '/cabinet/',
    configFile: false,
    logLevel: 'warn',
    build: { outDir: out, emptyOutDir: true, target: 'es2022', sourcemap: false, reportCompressedSize: false },
  });
  const old = `${out}-old`;
  try {
    if (existsSync(CABINET_DIST)) renameSync(CABINET_DIST, old);
    renameSync(out, CABINET_DIST);
  } catch {
    rmSync(out, { recursive: true, force: true });
  }
  rmSync(old, { recursive: true, force: true });
  return { dir: CABINET_DIST, built: true };
}
