import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRedis } from '@adnet/test-support/redis';
import type { TestRedis } from '@adnet/test-support/redis';
import { definePushScripts, saveSubscription, zoneSubscribersKey } from '../src/push/push-store.ts';

let server: TestRedis;
let redis: Redis;
const limits = { ttlMs: 60_000, perZone: 3, perSubscriber: 2 };
const sub = (n: number) => ({
  endpoint: `https://push.example/s/${n}`,
  expirationTime: null,
  keys: { p256dh: 'p'.repeat(87), auth: 'a'.repeat(22) },
});

beforeAll(async () => {
  server = await startRedis();
  redis = new Redis(server.url);
  definePushScripts(redis);
});
afterAll(async () => {
  await redis.quit();
  await server.stop();
});

describe('push subscriptions a browser can make us store', () => {
  it('keep at most perZone subscribers per zone; renewing one is always allowed', async () => {
    for (let n = 0; n < 3; n++) expect((await saveSubscription(redis, 'zoneA', sub(n), { limits })).saved).toBe(true);
    expect(await saveSubscription(redis, 'zoneA', sub(3), { limits })).toEqual({ saved: false, reason: 'zone_full' });
    expect((await saveSubscription(redis, 'zoneA', sub(1), { limits })).saved).toBe(true);
    expect(await redis.hlen(zoneSubscribersKey('zoneA'))).toBe(3);
  });

  it('put one browser on at most perSubscriber zones', async () => {
    expect((await saveSubscription(redis, 'zoneB', sub(9), { limits })).saved).toBe(true);
    expect((await saveSubscription(redis, 'zoneC', sub(9), { limits })).saved).toBe(true);
    expect(await saveSubscription(redis, 'zoneD', sub(9), { limits })).toEqual({
      saved: false,
      reason: 'subscriber_full',
    });
    expect(await redis.hlen(zoneSubscribersKey('zoneD'))).toBe(0);
    // Still renewable where it is.
    expect((await saveSubscription(redis, 'zoneB', sub(9), { limits })).saved).toBe(true);
  });

  it('stamp each subscription with when it lapses, and expire the per-browser record', async () => {
    await saveSubscription(redis, 'zoneE', sub(20), { limits, now: 1_000 });
    const [raw] = Object.values(await redis.hgetall(zoneSubscribersKey('zoneE')));
    expect(JSON.parse(raw ?? '{}')).toMatchObject({ endpoint: sub(20).endpoint, expires_at: 61_000 });
    const ttl = await redis.pttl((await redis.keys('push:ep:*'))[0] ?? '');
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(60_000);
  });
});
