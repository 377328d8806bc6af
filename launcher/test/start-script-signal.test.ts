import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '@adnet/test-support/redis';
import { launch, stopLaunched, tempDir } from './support/launch.ts';

afterAll(stopLaunched);

describe("the start script's shell", () => {
  // pnpm runs a script through `sh -c`, and a supervisor that signals only the process it started reaches that
  // shell: unless the shell has become the launcher's runner (`exec`), it dies and the product keeps running,
  // to be killed later without flushing its events.
  it('passes SIGTERM on: the product stops cleanly when only the script runner is signalled', async () => {
    const port = await freePort();
    const run = await launch({ PORT: String(port), DATA_DIR: tempDir(), LOG_LEVEL: 'info' }, 'Ad network is up', 'start-script');
    expect((await fetch(`${run.base}/healthz`)).status).toBe(200);
    run.child.kill('SIGTERM');
    await run.exit;
    expect(run.out()).toContain('"event":"stopped"');
    await expect(fetch(`http://127.0.0.1:${port}/healthz`)).rejects.toThrow();
  }, 90_000);
});
