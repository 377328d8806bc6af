import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type * as UwsModule from 'uWebSockets.js';
import { retargetIsoc23 } from './elf-isoc23.ts';

export type Uws = typeof UwsModule;

const require = createRequire(import.meta.url);

/** Node 24's module ABI: the engine's road off Node 20 (docs/deployment.md, "Runtime"). */
export const NODE24_ABI = '137';

/**
 * The newer uWebSockets.js build's Linux x64 binary for Node 24, and the one patch we accept for it: its
 * only glibc 2.38 imports are the C23 aliases `retargetIsoc23` rebinds. Keyed by the input's SHA-256 so an
 * unknown binary (another version, a tampered store) is refused rather than patched blind; `out` is the
 * SHA-256 the patch must produce, so a patch that drifted is refused too.
 */
const NODE24_BUILD = {
  package: '@btc-vision/uwebsockets.js',
  file: `uws_linux_x64_${NODE24_ABI}.node`,
  in: '98128405dba2fb608448e921a979530f70c946a2cc9889c15f2fa70c2d00ab05',
  out: '337e7312c83b0df8accbe2446055c1e663ef14824712a055dfb8c34852cd8d69',
} as const;

/**
 * Where the patched copy lives: a project-local cache beside the engine, never inside the package itself
 * (pnpm hard-links package files from its store, so an edit in place would change every project's copy).
 * A fresh `pnpm install` may drop it; it is rebuilt on the next load.
 */
export const PATCHED_UWS_DIR = join(dirname(fileURLToPath(import.meta.url)), '../../node_modules/.cache/uws-glibc236');

const sha256 = (b: Buffer): string => createHash('sha256').update(b).digest('hex');

/**
 * The Node 24 build, patched for glibc 2.36, written once into PATCHED_UWS_DIR (idempotent: an existing
 * copy with the expected hash is kept; several processes may race, each writes a temp file and renames).
 */
export function ensurePatchedUws(): string {
  const out = join(PATCHED_UWS_DIR, NODE24_BUILD.file);
  if (existsSync(out) && sha256(readFileSync(out)) === NODE24_BUILD.out) return out;
  // The package exports no package.json; its main file sits beside the binaries.
  const source = join(dirname(require.resolve(NODE24_BUILD.package)), NODE24_BUILD.file);
  const input = readFileSync(source);
  if (sha256(input) !== NODE24_BUILD.in)
    throw new Error(`${source} is not the build this patch is for (SHA-256 ${sha256(input)}); refusing to patch it`);
  const patched = retargetIsoc23(input);
  if (sha256(patched) !== NODE24_BUILD.out)
    throw new Error(`patching ${source} gave an unexpected SHA-256 ${sha256(patched)}; refusing it`);
  mkdirSync(PATCHED_UWS_DIR, { recursive: true });
  const temp = `${out}.${process.pid}.tmp`;
  writeFileSync(temp, patched, { mode: 0o755 });
  renameSync(temp, out);
  return out;
}

/**
 * Path of the native uWebSockets.js build for this platform and Node ABI: the patched newer build on
 * Node 24 (Linux x64), today's trufflesuite build (Node 20) otherwise.
 */
export function nativeUwsPath(): string {
  if (process.versions.modules === NODE24_ABI && process.platform === 'linux' && process.arch === 'x64')
    return ensurePatchedUws();
  const pkgDir = dirname(require.resolve('uWebSockets.js/package.json'));
  return join(pkgDir, 'binaries', `uws_${process.platform}_${process.arch}_${process.versions.modules}.node`);
}

/**
 * Loads the native binary directly. The npm build we use silently swaps in a
 * slow JavaScript imitation when its binary fails to load; the engine must
 * refuse to run on that, so this throws instead.
 */
export function loadNativeUws(): Uws {
  let path = '(not found)';
  try {
    path = nativeUwsPath();
    return require(path) as Uws;
  } catch (e) {
    throw new Error(
      `uWebSockets.js native binary did not load (${path}): ${(e as Error).message}. Refusing the JavaScript fallback.`,
    );
  }
}
