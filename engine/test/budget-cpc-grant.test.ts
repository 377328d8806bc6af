import { budgetDay } from '@adnet/schemas/budget-day';
import { advertiserHoldKey, balanceKey, campaignPoolKey, totalKeyOfPool } from '@adnet/schemas/redis-keys';
import type { StoredCampaign } from '@adnet/schemas/api';
import { describe, expect, it } from 'vitest';
import { BudgetSlices } from '../src/budget/budget-slices.ts';
import { candidateOf } from '../src/index/candidate.ts';
import type { Candidate } from '../src/index/candidate.ts';
import { campaignFixture, creativeFixture } from './fixtures/index-fixtures.ts';
import { useTestRedis } from './support/test-redis.ts';

// Slices of a campaign's pools granted to an engine, against a real Redis. A CPC campaign's impressions are
// charged nothing, so the engines' holds of its pools reserve nothing its clicks spend: a slice is granted
// while the budget has room for one more click beside the spend, whatever the other engines hold, so bidding
// stops when the budget cannot pay one more click (not a slice per engine earlier). A CPM campaign's slice
// still fits beside every hold.
const redis = useTestRedis();
const CENT = 10_000_000;
const IMPRESSION_MICRO_CENTS = 120_000;
let nextId = 0;

/** A campaign of its own whose pools, today, hold `spentCents` spent and 50 cents held by another engine. */
async function campaign(
  over: Partial<StoredCampaign>,
  spentCents: number,
  lifetimeSpentCents = 0,
): Promise<{ c: Candidate; pool: string }> {
  const c = candidateOf(
    campaignFixture({ id: ++nextId, advertiser_id: 1, ...over }),
    creativeFixture({ campaign_id: nextId }),
  );
  const pool = campaignPoolKey(c.campaignId, budgetDay(Date.now()));
  await redis.client.hset(pool, 'spent', spentCents * CENT, 'held', 50 * CENT, 'e:other', 50 * CENT);
  await redis.client.hset(totalKeyOfPool(pool), 'spent', lifetimeSpentCents * CENT);
  await redis.client.set(balanceKey(1), 1_000_000);
  return { c, pool };
}

/** Whether a fresh engine, once it has asked for its first slices, may bid for `c`. */
async function bidsOn(
  engineId: string,
  c: Candidate,
  budget = new BudgetSlices({ redis: redis.client, engineId, sliceCents: 25 }),
): Promise<boolean> {
  budget.prewarm([c]);
  const pool = campaignPoolKey(c.campaignId, budgetDay(Date.now()));
  // Each reserve writes the engine's hold, granted or not; its answer follows on the same connection.
  for (
    let i = 0;
    i < 100 &&
    !(
      (await redis.client.hexists(pool, `e:${engineId}`)) &&
      (await redis.client.hexists(advertiserHoldKey(1), `e:${engineId}`))
    );
    i++
  )
    await new Promise((r) => setTimeout(r, 10));
  await new Promise((r) => setTimeout(r, 20));
  return budget.tryTake(c, IMPRESSION_MICRO_CENTS);
}

const CPC = { bid_type: 'cpc', bid_micro_cents: 50_000 } as const; // $0.50 a click

describe("an engine's slice of a campaign's pools", () => {
  it('is granted to a CPC campaign while its daily budget has room for one more click, whatever the other engines hold, and not after', async () => {
    const { c, pool } = await campaign({ ...CPC, daily_budget_cents: 250 }, 200);
    expect(await bidsOn('e1', c)).toBe(true);
    expect(Number(await redis.client.hget(pool, 'e:e1'))).toBe(25 * CENT);
    // One nano-dollar short of one more click: no engine is granted a slice.
    await redis.client.hincrby(pool, 'spent', 1);
    expect(await bidsOn('e2', c)).toBe(false);
    expect(Number(await redis.client.hget(pool, 'e:e2'))).toBe(0);
  });

  it('is granted to a CPC campaign while its lifetime budget has room for one more click, and not after', async () => {
    const { c, pool } = await campaign({ ...CPC, daily_budget_cents: 100_000, total_budget_cents: 250 }, 0, 200);
    expect(await bidsOn('e1', c)).toBe(true);
    await redis.client.hincrby(totalKeyOfPool(pool), 'spent', 1);
    expect(await bidsOn('e2', c)).toBe(false);
  });

  it("fits a CPM campaign's slice beside every engine's hold", async () => {
    const { c, pool } = await campaign({ bid_type: 'cpm', bid_micro_cents: 150_000, daily_budget_cents: 250 }, 200);
    expect(await bidsOn('e1', c)).toBe(false);
    await redis.client.hincrby(pool, 'spent', -25 * CENT);
    expect(await bidsOn('e2', c)).toBe(true);
    expect(Number(await redis.client.hget(pool, 'e:e2'))).toBe(25 * CENT);
  });

  it('is given back when a CPC campaign switches to CPM: its impressions must not spend a slice granted beside the holds', async () => {
    const { c, pool } = await campaign({ ...CPC, daily_budget_cents: 250 }, 200);
    const budget = new BudgetSlices({ redis: redis.client, engineId: 'e1', sliceCents: 25 });
    expect(await bidsOn('e1', c, budget)).toBe(true);
    // The index now has it as CPM (every index change prewarms the changed campaigns' candidates).
    const cpm = candidateOf(
      campaignFixture({ id: c.campaignId, advertiser_id: 1, bid_type: 'cpm', daily_budget_cents: 250 }),
      creativeFixture({ campaign_id: c.campaignId }),
    );
    budget.prewarm([cpm]);
    // Its hold comes down to the bid it took: spend + holds fit the budget again, as the CPM rule wants.
    for (let i = 0; i < 100 && Number(await redis.client.hget(pool, 'e:e1')) !== IMPRESSION_MICRO_CENTS * 10; i++)
      await new Promise((r) => setTimeout(r, 10));
    expect(Number(await redis.client.hget(pool, 'e:e1'))).toBe(IMPRESSION_MICRO_CENTS * 10);
    await new Promise((r) => setTimeout(r, 20));
    expect(budget.tryTake(cpm, IMPRESSION_MICRO_CENTS)).toBe(false);
  });

  it('does not spend a CPC grant that comes back after the campaign switched to CPM', async () => {
    const { c, pool } = await campaign({ ...CPC, daily_budget_cents: 250 }, 200);
    const budget = new BudgetSlices({ redis: redis.client, engineId: 'e1', sliceCents: 25 });
    const cpm = candidateOf(
      campaignFixture({ id: c.campaignId, advertiser_id: 1, bid_type: 'cpm', daily_budget_cents: 250 }),
      creativeFixture({ campaign_id: c.campaignId }),
    );
    // The switch reaches the index while the CPC reservation is on its way.
    budget.prewarm([c]);
    budget.prewarm([cpm]);
    for (let i = 0; i < 100 && Number(await redis.client.hget(pool, 'e:e1')) !== 25 * CENT; i++)
      await new Promise((r) => setTimeout(r, 10));
    await new Promise((r) => setTimeout(r, 20));
    expect(budget.tryTake(cpm, IMPRESSION_MICRO_CENTS)).toBe(false);
    // The next re-base (CPM rule) gives that hold back to the pool.
    for (let i = 0; i < 100 && Number(await redis.client.hget(pool, 'e:e1')) !== 0; i++)
      await new Promise((r) => setTimeout(r, 10));
    expect(Number(await redis.client.hget(pool, 'e:e1'))).toBe(0);
  });
});
