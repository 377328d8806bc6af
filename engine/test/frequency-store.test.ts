import { frequencyKey } from '@adnet/schemas/redis-keys';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRedis } from '@adnet/test-support/redis';
import type { TestRedis } from '@adnet/test-support/redis';
import { RedisFrequencyStore } from '../src/frequency/redis-frequency-store.ts';

let server: TestRedis;
let redis: Redis;
let a: RedisFrequencyStore;
let b: RedisFrequencyStore;
const H = 3_600_000;

beforeAll(async () => {
  server = await startRedis();
  redis = new Redis(server.url);
  a = new RedisFrequencyStore(redis, 'engine-a');
  b = new RedisFrequencyStore(redis, 'engine-b');
});
afterAll(async () => {
  await redis.quit();
  await server.stop();
});

describe("the engines' shared frequency counts", () => {
  it("count every engine's ads per campaign and period, and tell each engine its own", async () => {
    const now = Date.now();
    await a.count('user1', 5, 'engine-a', now, 24 * H);
    await a.count('user1', 5, 'engine-b', now + 1, 24 * H);
    await b.count('user1', 5, 'engine-b', now + 2, 24 * H);
    await b.count('user1', 6, 'engine-a', now + 3, 2 * H);
    expect(await a.read('user1')).toEqual(
      new Map([
        [5, { total: 3, own: 1, ends: now + 24 * H }],
        [6, { total: 1, own: 1, ends: now + 3 + 2 * H }],
      ]),
    );
    expect((await b.read('user1')).get(5)).toEqual({ total: 3, own: 2, ends: now + 24 * H });
    expect(await a.read('nobody')).toEqual(new Map());
  });

  it('start a new period at the first ad after one ended, dropping the old per-engine counts', async () => {
    const t0 = Date.now() - 2 * H;
    await a.count('user2', 5, 'engine-a', t0, H);
    await a.count('user2', 5, 'engine-b', t0 + 10, H);
    const now = Date.now();
    await b.count('user2', 5, 'engine-b', now, H);
    expect((await a.read('user2')).get(5)).toEqual({ total: 1, own: 0, ends: now + H });
    expect((await redis.hkeys(frequencyKey('user2'))).sort()).toEqual(['e:5:engine-b', 'n:5', 'w:5']);
  });

  it('expire with the longest period the user is in, and never sooner', async () => {
    const now = Date.now();
    await a.count('user3', 1, 'engine-a', now, 2 * H);
    const ttl = await redis.pttl(frequencyKey('user3'));
    expect(ttl).toBeGreaterThan(2 * H - 5_000);
    expect(ttl).toBeLessThanOrEqual(2 * H);
    await a.count('user3', 2, 'engine-a', now, 1 * H);
    expect(await redis.pttl(frequencyKey('user3'))).toBeGreaterThan(2 * H - 5_000);
    await a.count('user3', 3, 'engine-a', now, 720 * H);
    expect(await redis.pttl(frequencyKey('user3'))).toBeGreaterThan(720 * H - 5_000);
  });
});
