import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { engineNodeArgs } from '@adnet/engine/full-collection';
import { envSchema } from '@adnet/schemas/config';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/**
 * V8's arguments an engine gets from the launcher (ENGINE_CONCURRENT_MARKING, ENGINE_SEMI_SPACE_MB, from this
 * process's environment as `pnpm start` reads them), then the bench's own (BENCH_ENGINE_NODE_ARGS): a bench
 * measures the engine as it runs.
 */
export function benchEngineNodeArgs(): string[] {
  const env = process.env;
  return [
    ...engineNodeArgs({
      concurrentMarking: envSchema.shape.ENGINE_CONCURRENT_MARKING.parse(env.ENGINE_CONCURRENT_MARKING),
      semiSpaceMb: envSchema.shape.ENGINE_SEMI_SPACE_MB.parse(env.ENGINE_SEMI_SPACE_MB),
    }),
    ...(env.BENCH_ENGINE_NODE_ARGS ?? '').split(' ').filter(Boolean),
  ];
}

/**
 * Runs a TypeScript entry point of the repository as a child and waits for its `{type: 'listening', port}` message.
 * `execPath`: the Node binary (the engines' may differ from this one, see engineNode in engine-node.ts).
 */
export function child(
  script: string,
  env: Record<string, string>,
  nodeArgs: string[] = [],
  execPath = process.execPath,
): Promise<{ proc: ChildProcess; port: number }> {
  const proc = spawn(execPath, [...nodeArgs, '--import', 'tsx', script], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', process.env.BENCH_CHILD_STDOUT ? 'inherit' : 'ignore', 'inherit', 'ipc'],
  });
  return new Promise((resolve, reject) => {
    proc.on(
      'message',
      (m: { type?: string; port?: number }) => m.type === 'listening' && resolve({ proc, port: m.port ?? 0 }),
    );
    proc.once('exit', (code) => reject(new Error(`${script} exited ${code}`)));
  });
}
