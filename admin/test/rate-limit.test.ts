import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { account, call, startApp } from '@adnet/test-support/admin';
import type { TestApp } from '@adnet/test-support/admin';
import { startRedis } from '@adnet/test-support/redis';
import type { TestRedis } from '@adnet/test-support/redis';

let redis: TestRedis;
let one: TestApp;
let two: TestApp;

beforeAll(async () => {
  redis = await startRedis();
  [one, two] = await Promise.all([
    startApp(redis.url, { API_RATE_LIMIT_PER_MIN: '10' }),
    startApp(redis.url, { API_RATE_LIMIT_PER_MIN: '10' }),
  ]);
});
afterAll(async () => {
  await Promise.all([one.close(), two.close()]);
  await redis.stop();
});

describe('per-token API rate limit', () => {
  it('is shared by every admin instance and answers 429 with Retry-After in seconds', async () => {
    const a = await account(one, 'advertiser');
    const statuses: number[] = [];
    let last: Awaited<ReturnType<typeof call>> | undefined;
    // Alternate instances: the limit is 10 per minute in total, not per process.
    for (let i = 0; i < 12; i++) {
      last = await call(i % 2 ? two : one, 'GET', '/api/adv/campaigns', { token: a.token });
      statuses.push(last.status);
    }
    expect(statuses.filter((s) => s === 200)).toHaveLength(10);
    expect(statuses.slice(10)).toEqual([429, 429]);
    expect(last?.body).toEqual({ error: 'Rate limit exceeded', code: 'rate_limited' });
    const retry = Number(last?.headers.get('retry-after'));
    expect(Number.isInteger(retry)).toBe(true);
    // 10 per minute refills one request every 6 s.
    expect(retry).toBeGreaterThanOrEqual(1);
    expect(retry).toBeLessThanOrEqual(6);
  });

  it('counts each token separately', async () => {
    const a = await account(one, 'advertiser');
    const b = await account(one, 'advertiser');
    for (let i = 0; i < 10; i++) await call(one, 'GET', '/api/adv/campaigns', { token: a.token });
    expect((await call(one, 'GET', '/api/adv/campaigns', { token: a.token })).status).toBe(429);
    expect((await call(one, 'GET', '/api/adv/campaigns', { token: b.token })).status).toBe(200);
  });

  it('lets a request through again once the window has moved', async () => {
    const a = await account(one, 'advertiser');
    for (let i = 0; i < 10; i++) await call(one, 'GET', '/api/adv/campaigns', { token: a.token });
    const denied = await call(one, 'GET', '/api/adv/campaigns', { token: a.token });
    expect(denied.status).toBe(429);
    // Move the limiter's clock instead of sleeping: shift the stored arrival time back by Retry-After.
    const [id] = a.token.split('|');
    const key = `rl:{tok:${id}}`;
    const tat = Number(await one.svc.redis.get(key));
    await one.svc.redis.set(key, tat - Number(denied.headers.get('retry-after')) * 1000, 'PX', 60_000);
    expect((await call(one, 'GET', '/api/adv/campaigns', { token: a.token })).status).toBe(200);
  });
});
