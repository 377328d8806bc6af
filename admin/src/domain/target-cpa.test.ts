import { describe, expect, it } from 'vitest';
import {
  CPA_DECAY,
  CPA_MAX_STEP,
  CPA_MIN_BID_SHARE,
  decideCampaign,
  decideZone,
  nextZoneBid,
  sameZoneBids,
  targetCpaFields,
} from './target-cpa.ts';
import type { CpaGoal } from './target-cpa.ts';

const USD = 1e9;
// $10 target, $20 test budget, a $2.00 CPM bid.
const goal: CpaGoal = { targetCpaNano: 10 * USD, testBudgetNano: 20 * USD, maxBidMicroCents: 200_000 };
const zone = (spendUsd: number, conversions: number) => ({ spendNano: spendUsd * USD, conversions });
/** A zone's memory as of a step at this spend and these conversions, all of it the recent evidence. */
const memory = (spendUsd: number, conversions: number) => ({
  steppedAtSpendNano: spendUsd * USD,
  steppedAtConversions: conversions,
  recentSpendNano: spendUsd * USD,
  recentConversions: conversions,
});

describe('decideZone: the per-zone state machine', () => {
  it('tests a zone until it spent its test budget, then excludes it when it never converted', () => {
    const testing = decideZone({ counts: zone(19.99, 0), prev: undefined, goal, campaignConversions: 50 });
    expect(testing).toMatchObject({ state: 'testing', bidMicroCents: 200_000 });
    const excluded = decideZone({ counts: zone(20, 0), prev: undefined, goal, campaignConversions: 50 });
    expect(excluded).toMatchObject({ state: 'excluded', bidMicroCents: 0 });
    expect(excluded.reason).toContain('$20.00 of its $20.00 test budget without a conversion');
  });

  it('keeps an excluded zone excluded, unless a late conversion arrives', () => {
    const prev = { state: 'excluded' as const, bidMicroCents: 0, ...memory(20, 0) };
    expect(decideZone({ counts: zone(20, 0), prev, goal, campaignConversions: 50 }).state).toBe('excluded');
    expect(decideZone({ counts: zone(20, 1), prev, goal, campaignConversions: 50 }).state).toBe('optimised');
  });

  it('only tests and excludes until the campaign has 10 conversions', () => {
    const early = decideZone({ counts: zone(5, 3), prev: undefined, goal, campaignConversions: 9 });
    expect(early).toMatchObject({ state: 'testing', bidMicroCents: 200_000 });
    expect(early.reason).toContain('9 so far');
    expect(decideZone({ counts: zone(5, 3), prev: undefined, goal, campaignConversions: 10 }).state).toBe('optimised');
  });

  it('lowers the bid of a zone above the target, raises one below it, never above the campaign bid', () => {
    const dear = decideZone({ counts: zone(40, 2), prev: undefined, goal, campaignConversions: 20 });
    expect(dear.state).toBe('optimised');
    expect(dear.bidMicroCents).toBeLessThan(200_000);
    expect(dear.reason).toContain('lowered');
    const prev = { state: 'optimised' as const, bidMicroCents: 100_000, ...memory(0, 0) };
    const cheap = decideZone({ counts: zone(20, 10), prev, goal, campaignConversions: 20 });
    expect(cheap.bidMicroCents).toBeGreaterThan(100_000);
    const atMax = decideZone({ counts: zone(20, 10), prev: undefined, goal, campaignConversions: 20 });
    expect(atMax.bidMicroCents).toBe(200_000);
  });

  it('waits for a target of new spend between steps, so a quiet zone keeps its bid', () => {
    const prev = { state: 'optimised' as const, bidMicroCents: 150_000, ...memory(40, 2) };
    const quiet = decideZone({ counts: zone(49, 2), prev, goal, campaignConversions: 20 });
    expect(quiet).toMatchObject({ bidMicroCents: 150_000, steppedAtSpendNano: 40 * USD });
    const moved = decideZone({ counts: zone(50, 2), prev, goal, campaignConversions: 20 });
    expect(moved.bidMicroCents).toBeLessThan(150_000);
    expect(moved.steppedAtSpendNano).toBe(50 * USD);
  });

  it('follows the recent eCPA: evidence before the last step is decayed by CPA_DECAY', () => {
    // $40 for 2 conversions before the last step ($20 eCPA), then $10 for 2 more: the recent eCPA is below $20.
    const prev = { state: 'optimised' as const, bidMicroCents: 100_000, ...memory(40, 2) };
    const next = decideZone({ counts: zone(50, 4), prev, goal, campaignConversions: 20 });
    expect(next.recentSpendNano).toBeCloseTo(40 * USD * CPA_DECAY + 10 * USD);
    expect(next.recentConversions).toBeCloseTo(2 * CPA_DECAY + 2);
    expect(next.steppedAtConversions).toBe(4);
  });
});

describe('nextZoneBid: the bounded multiplicative controller', () => {
  const step = (bid: number, ecpaUsd: number) =>
    nextZoneBid({ bidMicroCents: bid, ecpaNano: ecpaUsd * USD, targetCpaNano: 10 * USD, maxBid: 200_000 });

  it('moves by the square root of target / eCPA, at most CPA_MAX_STEP per step', () => {
    expect(step(100_000, 10)).toBe(100_000);
    expect(step(100_000, 10 / 1.21)).toBe(110_000);
    expect(step(100_000, 1)).toBe(Math.round(100_000 * (1 + CPA_MAX_STEP)));
    expect(step(100_000, 1000)).toBe(Math.round(100_000 / (1 + CPA_MAX_STEP)));
  });

  it('stays between the floor share and the campaign bid', () => {
    expect(step(199_000, 1)).toBe(200_000);
    expect(step(200_000 * CPA_MIN_BID_SHARE, 1000)).toBe(200_000 * CPA_MIN_BID_SHARE);
  });

  it('converges on the bid whose eCPA meets the target when eCPA follows the bid', () => {
    // A zone whose eCPA is proportional to the bid: $10 is met at a bid of 80 000.
    let bid = 200_000;
    for (let i = 0; i < 40; i++) bid = step(bid, (bid / 80_000) * 10);
    expect(Math.abs(bid - 80_000)).toBeLessThan(800);
  });
});

describe('decideCampaign', () => {
  const subidOf = (id: number) => (id === 99 ? undefined : `z${id}`);

  it('stores excluded and optimised zones only, by subid, and counts the campaign conversions', () => {
    const counts = new Map([
      [1, zone(25, 0)],
      [2, zone(3, 0)],
      [3, zone(30, 6)],
      [4, zone(30, 6)],
      [99, zone(30, 0)],
    ]);
    const r = decideCampaign({ goal, counts, prev: [], subidOf });
    expect(r.conversions).toBe(12);
    expect(r.entries.map((e) => [e.zone_id, e.subid, e.state])).toEqual([
      [1, 'z1', 'excluded'],
      [3, 'z3', 'optimised'],
      [4, 'z4', 'optimised'],
    ]);
    expect(r.decisions.get(2)?.state).toBe('testing');
    expect(r.decisions.get(99)?.state).toBe('excluded');
    expect(sameZoneBids(r.entries, decideCampaign({ goal, counts, prev: r.entries, subidOf }).entries)).toBe(true);
  });
});

describe('targetCpaFields', () => {
  const none = { target_cpa_cents: null, cpa_test_budget_cents: null };
  it('defaults the test budget to twice the target, and keeps or replaces them on update', () => {
    expect(targetCpaFields({ target_cpa_usd: 12.5 }, none)).toEqual({
      ok: true,
      target_cpa_cents: 1250,
      cpa_test_budget_cents: 2500,
    });
    const set = { target_cpa_cents: 1000, cpa_test_budget_cents: 5000 };
    expect(targetCpaFields({}, set)).toMatchObject({ target_cpa_cents: 1000, cpa_test_budget_cents: 5000 });
    expect(targetCpaFields({ target_cpa_usd: 20 }, set)).toMatchObject({ cpa_test_budget_cents: 4000 });
    expect(targetCpaFields({ cpa_test_budget_usd: 30 }, set)).toMatchObject({
      target_cpa_cents: 1000,
      cpa_test_budget_cents: 3000,
    });
    expect(targetCpaFields({ target_cpa_usd: null }, set)).toEqual({
      ok: true,
      target_cpa_cents: null,
      cpa_test_budget_cents: null,
    });
  });

  it('refuses a test budget without a target, naming it', () => {
    expect(targetCpaFields({ cpa_test_budget_usd: 5 }, none)).toEqual({
      ok: false,
      fields: { cpa_test_budget_usd: 'needs a target_cpa_usd' },
    });
  });
});
