import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';

export const freePort = (): Promise<number> =>
  new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });

/** A throwaway redis-server (no persistence) in a temp folder, for one benchmark run. */
export async function startBenchRedis(
  prefix: string,
): Promise<{ url: string; dir: string; pid: number; client: Redis; stop(): Promise<void> }> {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const port = await freePort();
  const proc = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--appendonly', 'no'],
    { stdio: 'ignore' },
  );
  const url = `redis://127.0.0.1:${port}`;
  const client = new Redis(url, { retryStrategy: (n) => (n > 50 ? null : 50) });
  client.on('error', () => undefined); // refused until redis-server is up; ping() waits for it
  await client.ping();
  return {
    url,
    dir,
    pid: proc.pid ?? 0,
    client,
    async stop() {
      await client.quit();
      proc.kill('SIGTERM');
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
