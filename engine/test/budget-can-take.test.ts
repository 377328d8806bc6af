import { budgetDay } from '@adnet/schemas/budget-day';
import { advertiserHoldKey, balanceKey, campaignPoolKey } from '@adnet/schemas/redis-keys';
import { describe, expect, it } from 'vitest';
import { BudgetSlices } from '../src/budget/budget-slices.ts';
import { candidateOf } from '../src/index/candidate.ts';
import { campaignFixture, creativeFixture } from './fixtures/index-fixtures.ts';
import { useTestRedis } from './support/test-redis.ts';

// The live preview's budget gate (routes/preview.ts): whether a campaign could pay for an impression, against a
// real Redis, taking nothing from the engine's slices and reserving nothing more in Redis.
const redis = useTestRedis();
const IMPRESSION_MICRO_CENTS = 120_000;

/** The engine's own slice of the campaign's pool: what a take lowers before Redis hears of it. */
const localOf = (budget: BudgetSlices, pool: string) =>
  (budget as unknown as { campaigns: Map<string, { local: number; outstanding: number }> }).campaigns.get(pool);

describe('BudgetSlices.canTake', () => {
  it('says yes once slices are reserved, and takes, holds and reserves nothing', async () => {
    await redis.client.set(balanceKey(7), 1_000_000);
    const c = candidateOf(campaignFixture({ id: 71, advertiser_id: 7 }), creativeFixture({ campaign_id: 71 }));
    const budget = new BudgetSlices({ redis: redis.client, engineId: 'e1', sliceCents: 25 });
    const pool = campaignPoolKey(71, budgetDay(Date.now()));
    // Nothing reserved yet: it could not pay here, and asking reserves nothing.
    expect(budget.canTake(c, IMPRESSION_MICRO_CENTS)).toBe(false);
    expect(await redis.client.exists(pool)).toBe(0);
    budget.prewarm([c]);
    for (let i = 0; i < 100 && !(await redis.client.hexists(advertiserHoldKey(7), 'e:e1')); i++)
      await new Promise((r) => setTimeout(r, 10));
    await new Promise((r) => setTimeout(r, 20));
    const slice = { ...localOf(budget, pool) };
    const held = [await redis.client.hgetall(pool), await redis.client.hgetall(advertiserHoldKey(7))];
    for (let i = 0; i < 50; i++) expect(budget.canTake(c, IMPRESSION_MICRO_CENTS)).toBe(true);
    // More than a slice holds: no.
    expect(budget.canTake(c, 1000 * IMPRESSION_MICRO_CENTS)).toBe(false);
    await new Promise((r) => setTimeout(r, 50));
    expect({ ...localOf(budget, pool) }).toEqual(slice);
    expect([await redis.client.hgetall(pool), await redis.client.hgetall(advertiserHoldKey(7))]).toEqual(held);
    // A take does move the slice: the comparison above can tell.
    expect(budget.tryTake(c, IMPRESSION_MICRO_CENTS)).toBe(true);
    expect(localOf(budget, pool)?.local).toBe((slice.local ?? 0) - IMPRESSION_MICRO_CENTS * 10);
  });
});
