import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '@adnet/test-support/redis';
import { launch, stopLaunched, tempDir } from './support/launch.ts';

afterAll(stopLaunched);

/** Starts the product through its start script, signals `who` and returns the output once everything has stopped. */
async function signalled(who: 'runner' | 'group'): Promise<{ out: string; port: number }> {
  const port = await freePort();
  const run = await launch(
    { PORT: String(port), DATA_DIR: tempDir(), LOG_LEVEL: 'info' },
    'Ad network is up',
    'start-script',
  );
  expect((await fetch(`${run.base}/healthz`)).status).toBe(200);
  if (who === 'runner') run.child.kill('SIGTERM');
  else process.kill(-(run.child.pid ?? 0), 'SIGTERM');
  await run.exit;
  // Signalled as a group, the launcher outlives the shell that ran it: its last line comes after the shell's exit.
  await expect.poll(() => run.out(), { timeout: 20_000 }).toContain('"event":"stopped"');
  await expect(fetch(`http://127.0.0.1:${port}/healthz`)).rejects.toThrow();
  return { out: run.out(), port };
}

describe("the start script's shell", () => {
  // pnpm runs a script through `sh -c`, and a supervisor that signals only the process it started reaches that
  // shell: unless the shell has become the launcher's runner (`exec`), it dies and the product keeps running,
  // to be killed later without flushing its events.
  it('passes SIGTERM on: the product stops cleanly when only the script runner is signalled', async () => {
    await signalled('runner');
  }, 90_000);

  // Ctrl-C in a terminal, or a supervisor that kills the group, signals every process of the product at once:
  // its private Redis among them would stop before the admin's last batch and the engines' journals reach it.
  it('stops cleanly when the whole process group is signalled, its private Redis last', async () => {
    const { out } = await signalled('group');
    expect(out).not.toContain('stop failed');
  }, 90_000);
});
