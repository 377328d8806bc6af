import { budgetDay } from '@adnet/schemas/budget-day';
import { campaignPoolKey } from '@adnet/schemas/redis-keys';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRedis } from '@adnet/test-support/redis';
import type { TestRedis } from '@adnet/test-support/redis';
import { BudgetSlices } from '../src/budget/budget-slices.ts';
import type { Candidate } from '../src/index/candidate.ts';

// The budget's idle scan against a real Redis: a pool this engine has not bid from for five minutes gives
// its hold back at a flush, walked in slices over more pools than one slice covers, and at most every 10 s
// of the budget's clock (a flush every 200 ms walked every pool each time).

let server: TestRedis;
let redis: Redis;
const POOLS = 3_000;

beforeAll(async () => {
  server = await startRedis();
  redis = new Redis(server.url);
});
afterAll(async () => {
  await redis.quit();
  await server.stop();
});

const candidate = (campaignId: number) =>
  ({ campaignId, advertiserId: 1, dailyBudgetCents: 100_000, totalBudgetCents: -1 }) as unknown as Candidate;

describe('the budget idle scan', () => {
  it('gives back every idle pool, and scans at most every 10 s', async () => {
    let clock = Date.parse('2026-11-23T10:00:00Z');
    const day = budgetDay(clock);
    const budget = new BudgetSlices({ redis, engineId: 'e1', sliceCents: 100, now: () => clock });
    const held = async () => {
      const p = redis.pipeline();
      for (let id = 1; id <= POOLS; id++) p.hget(campaignPoolKey(id, day), 'e:e1');
      return ((await p.exec()) ?? []).filter(([, v]) => Number(v) > 0).length;
    };
    const t0 = clock;
    budget.prewarm(Array.from({ length: POOLS }, (_, i) => candidate(i + 1)));
    await redis.ping();
    await budget.flush();
    expect(await held()).toBe(POOLS);

    // Campaign 1 bids once more; the others go idle.
    clock = t0 + 4_000;
    budget.tryTake(candidate(1), 1_000);
    clock = t0 + 5 * 60_000 + 1_000;
    await budget.flush();
    expect(await held()).toBe(1);

    // 5 s later campaign 1 has been idle for five minutes too, but the last scan was 5 s ago: kept until 10 s.
    clock += 5_000;
    await budget.flush();
    expect(await held()).toBe(1);
    clock += 5_000;
    await budget.flush();
    expect(await held()).toBe(0);
  });
});
