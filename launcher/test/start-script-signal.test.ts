import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '../../tests/e2e/support/redis.ts';
import { tempDir, stopLaunched } from './support/launch.ts';

afterAll(stopLaunched);

const ROOT = new URL('../..', import.meta.url).pathname;
const startScript = (JSON.parse(readFileSync(`${ROOT}/package.json`, 'utf8')) as { scripts: { start: string } }).scripts.start;

describe("the start script's shell", () => {
  // pnpm runs a script through `sh -c`, and a supervisor that signals only the process it started reaches that
  // shell: unless the shell has become the launcher's runner (`exec`), it dies and the product keeps running,
  // to be killed later without flushing its events.
  it('passes SIGTERM on: the product stops cleanly when only the script runner is signalled', async () => {
    const port = await freePort();
    const child = spawn('sh', ['-c', startScript], {
      cwd: ROOT,
      env: { ...process.env, PATH: `${ROOT}/node_modules/.bin:${process.env.PATH}`, PORT: String(port), DATA_DIR: tempDir(), METRICS_PORT: '0' },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    const exit = new Promise<void>((r) => child.once('exit', () => r()));
    try {
      const up = Date.now();
      while (!out.includes('Ad network is up')) {
        if (Date.now() - up > 45_000) throw new Error(`no start within 45 s:\n${out}`);
        await new Promise((r) => setTimeout(r, 200));
      }
      expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);
      child.kill('SIGTERM');
      await exit;
      expect(out).toContain('"event":"stopped"');
      await expect(fetch(`http://127.0.0.1:${port}/healthz`)).rejects.toThrow();
    } finally {
      // Whatever the outcome, nothing of this product outlives the test.
      try {
        process.kill(-(child.pid ?? 0), 'SIGTERM');
      } catch {
        // The group is gone: the product stopped.
      }
    }
  }, 90_000);
});
