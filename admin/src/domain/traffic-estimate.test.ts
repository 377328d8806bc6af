import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { estimateTraffic } from './traffic-estimate.ts';
import type { EstimateBid, MatchedTraffic } from './traffic-estimate.ts';

/** `n` requests sold at each CPM (micro-cents), one bucket per price. */
const soldAt = (...prices: [price: number, n: number][]) =>
  prices.map(([price, n]) => ({ sold: n, soldMicroCents: price * n }));

const cpm = (bidMicroCents: number, dailyBudgetCents = 100_000_000): EstimateBid => ({
  bidType: 'cpm',
  bidMicroCents,
  dailyBudgetCents,
  ctr: 0.004,
});

describe('estimateTraffic', () => {
  // 700 requests a week: 70 unsold, 630 sold at 0.50, 1.00 and 2.00 USD CPM.
  const week: MatchedTraffic = {
    windowDays: 7,
    unsold: 70,
    buckets: soldAt([50_000, 210], [100_000, 210], [200_000, 210]),
  };

  it('wins the unsold requests and every sold one whose price the bid beats', () => {
    const e = estimateTraffic(week, cpm(150_000));
    expect(e.requests_per_day).toBe(100);
    // 70 unsold + 210 at 0.50 + 210 at 1.00, of 700.
    expect(e.win_rate).toBe(0.7);
    expect(e.impressions_per_day).toBe(70);
    // Per day: 10 at one cent CPM, 30 at 0.51, 30 at 1.01 (second price plus one cent).
    expect(e.spend_per_day_usd).toBe(Math.round(((10 * 0.01 + 30 * 0.51 + 30 * 1.01) / 1000) * 100) / 100);
    expect(e.cpm_percentiles_usd).toEqual({ p25: 0.5, p50: 1, p75: 2, p90: 2 });
    expect(e.min_bid_usd).toBe(0.50001);
    expect(e.recommended_bid_usd).toBe(2.00001);
  });

  it('a bid equal to a winning price does not beat it (ties go to the incumbent)', () => {
    expect(estimateTraffic(week, cpm(100_000)).win_rate).toBe(0.4);
  });

  it('past the daily budget, wins the share of its requests the budget pays for', () => {
    const e = estimateTraffic({ windowDays: 1, unsold: 0, buckets: soldAt([99_000, 1000]) }, cpm(300_000, 50));
    // 1000 wins cost 1 USD at 3 USD (second price plus one cent: 1.00 USD CPM): 50 cents buys half of them.
    expect(e.impressions_per_day).toBe(500);
    expect(e.spend_per_day_usd).toBe(0.5);
  });

  it('a CPC bid ranks by bid x CTR x 1000 and its guidance is in CPC', () => {
    const cpc: EstimateBid = { bidType: 'cpc', bidMicroCents: 37_500, dailyBudgetCents: 100_000, ctr: 0.004 };
    // 0.375 USD a click x 0.004 x 1000 = 1.50 USD eCPM: beats 0.50 and 1.00.
    const e = estimateTraffic(week, cpc);
    expect(e.win_rate).toBe(0.7);
    // 2.00001 USD CPM at 0.4 % CTR is 0.50001 USD a click, rounded up to the micro-cent.
    expect(e.recommended_bid_usd).toBe(0.50001);
  });

  it('nothing recorded: no requests, no percentiles, the lowest bid as guidance', () => {
    const e = estimateTraffic({ windowDays: 7, unsold: 0, buckets: [] }, cpm(100_000));
    expect(e).toMatchObject({ requests_per_day: 0, impressions_per_day: 0, win_rate: 0, spend_per_day_usd: 0 });
    expect(e.cpm_percentiles_usd).toEqual({ p25: null, p50: null, p75: null, p90: null });
    expect(e.min_bid_usd).toBe(0.00001);
  });

  const traffic = fc.record({
    windowDays: fc.integer({ min: 1, max: 7 }),
    unsold: fc.nat(10_000),
    buckets: fc.array(
      fc
        .tuple(fc.integer({ min: 1, max: 5_000_000 }), fc.integer({ min: 1, max: 10_000 }))
        .map(([price, n]) => ({ sold: n, soldMicroCents: price * n })),
      { maxLength: 40 },
    ),
  });
  const bidType = fc.constantFrom<EstimateBid['bidType']>('cpm', 'cpc');
  const money = fc.integer({ min: 1, max: 10_000_000 });

  it('past the budget a higher bid buys dearer impressions, fewer of them, as the auction does', () => {
    const t: MatchedTraffic = { windowDays: 1, unsold: 0, buckets: soldAt([10_000, 1000], [200_000, 1000]) };
    // 0.11 USD CPM wins the cheap half for 11 cents; 3 USD wins all, the dear half at 2.01 USD CPM, 2.12 USD in
    // all: 11 cents buys 2000 x 0.11 / 2.12 of them.
    expect(estimateTraffic(t, cpm(11_000, 11)).impressions_per_day).toBe(1000);
    expect(estimateTraffic(t, cpm(300_000, 11)).impressions_per_day).toBe(103.8);
    expect(estimateTraffic(t, cpm(300_000, 11)).win_rate).toBe(1);
  });

  it('a higher bid never wins a smaller share, nor buys fewer impressions while the budget does not bind', () => {
    fc.assert(
      fc.property(
        traffic,
        bidType,
        fc.tuple(money, money),
        fc.integer({ min: 100, max: 10_000_000 }),
        (t, type, [a, b], budget) => {
          const [low, high] = a <= b ? [a, b] : [b, a];
          const at = (bid: number, cents = budget) =>
            estimateTraffic(t, { bidType: type, bidMicroCents: bid, dailyBudgetCents: cents, ctr: 0.004 });
          expect(at(high).win_rate).toBeGreaterThanOrEqual(at(low).win_rate);
          expect(at(high, 1e12).impressions_per_day).toBeGreaterThanOrEqual(at(low, 1e12).impressions_per_day);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('a larger daily budget never buys fewer impressions', () => {
    fc.assert(
      fc.property(traffic, bidType, money, fc.tuple(money, money), (t, type, bid, [a, b]) => {
        const [low, high] = a <= b ? [a, b] : [b, a];
        const at = (budget: number) =>
          estimateTraffic(t, { bidType: type, bidMicroCents: bid, dailyBudgetCents: budget, ctr: 0.01 });
        expect(at(high).impressions_per_day).toBeGreaterThanOrEqual(at(low).impressions_per_day);
      }),
      { numRuns: 300 },
    );
  });

  it('less traffic (a subset of the requests) never finds more requests, nor more impressions unless the budget binds', () => {
    fc.assert(
      fc.property(traffic, fc.double({ min: 0, max: 1, noNaN: true }), money, (t, keep, price) => {
        // Narrower targeting keeps part of each bucket and of the unsold requests.
        const narrow: MatchedTraffic = {
          windowDays: t.windowDays,
          unsold: Math.floor(t.unsold * keep),
          buckets: t.buckets.map((b) => {
            const sold = Math.floor(b.sold * keep);
            return { sold, soldMicroCents: Math.floor(b.soldMicroCents / b.sold) * sold };
          }),
        };
        // Under a budget that binds, leaving out dear inventory may buy more of the cheap: only requests are bounded.
        const bid: EstimateBid = { bidType: 'cpm', bidMicroCents: price, dailyBudgetCents: 1e12, ctr: 0.004 };
        const wide = estimateTraffic(t, bid);
        const small = estimateTraffic(narrow, bid);
        expect(small.requests_per_day).toBeLessThanOrEqual(wide.requests_per_day);
        expect(small.impressions_per_day).toBeLessThanOrEqual(wide.impressions_per_day);
        const tight = { ...bid, dailyBudgetCents: 1_000 };
        expect(estimateTraffic(narrow, tight).requests_per_day).toBeLessThanOrEqual(
          estimateTraffic(t, tight).requests_per_day,
        );
      }),
      { numRuns: 300 },
    );
  });

  it('spends no more than the daily budget', () => {
    fc.assert(
      fc.property(traffic, bidType, money, money, (t, type, bid, budget) => {
        const e = estimateTraffic(t, { bidType: type, bidMicroCents: bid, dailyBudgetCents: budget, ctr: 0.004 });
        expect(e.spend_per_day_usd).toBeLessThanOrEqual(budget / 100 + 0.005);
      }),
      { numRuns: 300 },
    );
  });
});
