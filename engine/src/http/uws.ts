import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type * as UwsModule from 'uWebSockets.js';

type Uws = typeof UwsModule;

const require = createRequire(import.meta.url);

/** Path of the native uWebSockets.js build for this platform and Node ABI. */
export function nativeUwsPath(): string {
  const pkgDir = dirname(require.resolve('uWebSockets.js/package.json'));
  return join(pkgDir, 'binaries', `uws_${process.platform}_${process.arch}_${process.versions.modules}.node`);
}

/**
 * Loads the native binary directly. The npm build we use silently swaps in a
 * slow JavaScript imitation when its binary fails to load; the engine must
 * refuse to run on that, so this throws instead.
 */
export function loadNativeUws(): Uws {
  const path = nativeUwsPath();
  try {
    return require(path) as Uws;
  } catch (e) {
    throw new Error(`uWebSockets.js native binary did not load (${path}): ${(e as Error).message}. Refusing the JavaScript fallback.`);
  }
}
