import { createServer } from 'node:net';
import type { Server } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { RedisHealth } from '../src/journal/redis-health.ts';

const opened: { health: RedisHealth; server: Server }[] = [];
afterEach(() => {
  for (const { health, server } of opened.splice(0)) {
    health.stop();
    server.close();
  }
});

/** A server that takes the connection and never answers: a Redis still slow to greet a new client. */
async function silentServer(): Promise<{ server: Server; url: string }> {
  const server = createServer(() => undefined);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return { server, url: `redis://127.0.0.1:${address.port}` };
}

describe('RedisHealth', () => {
  // Every start logged "Redis away" and journaled for a moment when the probe's connection took longer than the
  // PING deadline on a busy machine, though the engine had just read its index from that Redis.
  it('does not announce an outage while its first connection is still being made', async () => {
    const { server, url } = await silentServer();
    const changes: string[] = [];
    const health = new RedisHealth({
      url,
      intervalMs: 50,
      timeoutMs: 100,
      onChange: (up, why) => changes.push(`${up}:${why}`),
    });
    opened.push({ health, server });
    expect(await health.check()).toBe(false);
    expect(await health.check()).toBe(false);
    expect(health.up).toBe(true);
    expect(changes).toEqual([]);
  });

  it('calls Redis away once the first connection has had its grace', async () => {
    const { server, url } = await silentServer();
    const changes: boolean[] = [];
    const health = new RedisHealth({ url, intervalMs: 50, timeoutMs: 100, onChange: (up) => changes.push(up) });
    opened.push({ health, server });
    health.start();
    await expect.poll(() => changes, { timeout: 8_000, interval: 100 }).toEqual([false]);
    expect(health.up).toBe(false);
  }, 10_000);
});
