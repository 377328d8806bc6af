import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRedis } from '@adnet/test-support/redis';
import type { TestRedis } from '@adnet/test-support/redis';
import { RedisPopCaps } from '../src/store/pop-caps.ts';

let server: TestRedis;
let redis: Redis;
let other: Redis;
let a: RedisPopCaps;
let b: RedisPopCaps;

beforeAll(async () => {
  server = await startRedis();
  redis = new Redis(server.url);
  // Two engines' views of the one cap.
  a = new RedisPopCaps(redis);
  other = new Redis(server.url);
  b = new RedisPopCaps(other);
});
afterAll(async () => {
  await Promise.all([redis.quit(), other.quit()]);
  await server.stop();
});

describe("the engines' shared pop caps", () => {
  it("give a visitor's pop of a zone to one taker, however many race, for the zone's hours", async () => {
    const taken = await Promise.all(Array.from({ length: 10 }, (_, i) => (i % 2 ? a : b).take(1, 'v1', 3)));
    expect(taken.filter(Boolean)).toHaveLength(1);
    expect(await redis.ttl('pop:{1}:v1')).toBeGreaterThan(3 * 3600 - 5);
    expect(await b.held(1, 'v1')).toBe(true);
    // Another visitor, another zone: their own pops.
    expect([await a.held(1, 'v2'), await a.held(2, 'v1')]).toEqual([false, false]);
    expect(await a.take(2, 'v1', 1)).toBe(true);
  });

  it("let a widget pop's ticket find its own pop again, and no other ticket", async () => {
    expect(await a.take(3, 'v1', 24, 'bid-1')).toBe(true);
    // The same beacon replayed (the request journal runs it again): its pop is its own.
    expect(await b.take(3, 'v1', 24, 'bid-1')).toBe(true);
    expect(await b.take(3, 'v1', 24, 'bid-2')).toBe(false);
    // A /go visit names no holder: within the cap it is refused.
    expect(await a.take(3, 'v1', 24)).toBe(false);
  });

  it('hold for the cap and then let the visitor have a pop again', async () => {
    expect(await a.take(4, 'v1', 1, 'bid-1')).toBe(true);
    await redis.expire('pop:{4}:v1', 1);
    await new Promise((r) => setTimeout(r, 1_100));
    expect(await a.held(4, 'v1')).toBe(false);
    expect(await a.take(4, 'v1', 1, 'bid-2')).toBe(true);
  });
});
