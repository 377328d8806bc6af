import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));

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
    proc.on('message', (m: { type?: string; port?: number }) => m.type === 'listening' && resolve({ proc, port: m.port ?? 0 }));
    proc.once('exit', (code) => reject(new Error(`${script} exited ${code}`)));
  });
}
