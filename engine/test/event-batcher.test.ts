import type { EngineEvent } from '@adnet/schemas/events';
import { EVENT_STREAM } from '@adnet/schemas/redis-keys';
import { decodeEntry } from '@adnet/schemas/wire/event-stream';
import { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import { startRedis } from '@adnet/test-support/redis';
import type { TestRedis } from '@adnet/test-support/redis';
import { EventBatcher } from '../src/events/event-batcher.ts';

/** Event number `n` (carried in `ts`, so order and completeness can be checked). */
const ev = (id: string, n: number): EngineEvent => ({ id, type: 'nobid', ts: n, engine: 'test', reason: 'budget' });

let redis: TestRedis | undefined;
afterEach(async () => {
  await redis?.stop();
  redis = undefined;
});

async function readAll(url: string): Promise<EngineEvent[]> {
  const c = new Redis(url);
  const entries = await c.xrangeBuffer(EVENT_STREAM, '-', '+');
  await c.quit();
  return entries.flatMap(([, f]) => decodeEntry(f));
}

const client = (url: string) => {
  const c = new Redis(url, { maxRetriesPerRequest: 1, retryStrategy: () => 50 });
  c.on('error', () => undefined);
  return c;
};

describe('EventBatcher against a real Redis', () => {
  it('writes every event once, in batches of at most batchMax', async () => {
    redis = await startRedis();
    const c = client(redis.url);
    const b = new EventBatcher({
      redis: c,
      flushMs: 10_000,
      batchMax: 100,
      bufferMax: 10_000,
      streamMaxLen: 1_000_000,
    });
    for (let i = 0; i < 1_050; i++) b.push(ev(`e${i}`, i));
    await b.stop();
    const events = await readAll(redis.url);
    expect(events.map((e) => e.ts)).toEqual(Array.from({ length: 1_050 }, (_, i) => i));
    expect(await c.xlen(EVENT_STREAM)).toBe(11);
    expect(b.written).toBe(1_050);
    await c.quit();
  });

  it('keeps events while Redis is down and delivers them when it is back', async () => {
    redis = await startRedis();
    const c = client(redis.url);
    const errors: unknown[] = [];
    const b = new EventBatcher({
      redis: c,
      flushMs: 10_000,
      batchMax: 50,
      bufferMax: 10_000,
      streamMaxLen: 1_000_000,
      onError: (e) => errors.push(e),
    });
    for (let i = 0; i < 100; i++) b.push(ev(`a${i}`, i));
    await b.flush();
    const down = redis.restart(); // SHUTDOWN, then start again on the same port and data
    for (let i = 100; i < 300; i++) b.push(ev(`b${i}`, i));
    await b.flush().catch(() => undefined);
    await down;
    for (let i = 0; i < 50 && b.backlog > 0; i++) {
      await b.flush();
      if (b.backlog > 0) await new Promise((r) => setTimeout(r, 100));
    }
    const events = await readAll(redis.url);
    expect(new Set(events.map((e) => e.ts)).size).toBe(300);
    expect(b.dropped).toBe(0);
    await c.quit();
  });

  it('drops and counts past its bound instead of growing without limit', () => {
    const c = new Redis('redis://127.0.0.1:1', { lazyConnect: true });
    const b = new EventBatcher({
      redis: c,
      flushMs: 10_000,
      batchMax: 1_000_000,
      bufferMax: 1_000,
      streamMaxLen: 1_000,
    });
    for (let i = 0; i < 1_500; i++) b.push(ev(`x${i}`, i));
    expect(b.backlog).toBe(1_000);
    expect(b.dropped).toBe(500);
    c.disconnect();
  });
});
