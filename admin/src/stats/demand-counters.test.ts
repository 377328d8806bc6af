import { statsQuerySchema } from '@adnet/schemas/stats';
import type { StatsRow } from '@adnet/schemas/stats';
import { describe, expect, it } from 'vitest';
import { auctionCounts, daysOf, takesAuctionCounters, withAuctionCounters } from './demand-counters.ts';

const q = (raw: Record<string, string>) => statsQuerySchema.parse({ from: '2026-11-01', to: '2026-11-02', ...raw });
const row = (fields: Partial<StatsRow>): StatsRow => ({
  impressions: 1,
  viewable_impressions: 0,
  clicks: 0,
  invalid_clicks: 0,
  ctr: 0,
  spent_cents: 5,
  spent_nano: 50_000_000,
  conversions: 0,
  ecpa_cents: 0,
  ...fields,
});
const daily = new Map([
  [
    '2026-11-01',
    new Map([
      [3, auctionCounts({ requests: '10', bids: '4', wins: '2', timeouts: '1', errors: '0', late: '7' })],
      [4, auctionCounts({ requests: '5', errors: '5' })],
    ]),
  ],
  [
    '2026-11-02',
    new Map([
      [3, auctionCounts({ requests: '1', bids: '1', wins: '1' })],
      [4, auctionCounts({})],
    ]),
  ],
]);

describe('auction counters in admin statistics by demand', () => {
  it('join only groupings by demand and day, in UTC', () => {
    expect(takesAuctionCounters(q({ group_by: 'demand' }))).toBe(true);
    expect(takesAuctionCounters(q({ group_by: 'day,demand' }))).toBe(true);
    expect(takesAuctionCounters(q({ group_by: 'day,demand', tz: 'Europe/Berlin' }))).toBe(false);
    expect(takesAuctionCounters(q({ group_by: 'demand,zone' }))).toBe(false);
    expect(takesAuctionCounters(q({ group_by: 'day' }))).toBe(false);
    expect(daysOf(q({}))).toEqual(['2026-11-01', '2026-11-02']);
  });

  it('sum the range per partner, leave our own row alone, and add partners that were asked but bought nothing', () => {
    const rows = withAuctionCounters([row({ demand: '3' }), row({ demand: 'own' })], q({ group_by: 'demand' }), daily);
    expect(rows).toEqual([
      row({ demand: '3', bid_requests: 11, bids: 5, wins: 3, timeouts: 1, errors: 0 }),
      row({
        demand: '4',
        impressions: 0,
        spent_cents: 0,
        spent_nano: 0,
        bid_requests: 5,
        bids: 0,
        wins: 0,
        timeouts: 0,
        errors: 5,
      }),
      row({ demand: 'own' }),
    ]);
  });

  it('split by day when grouped by day, a day without any count adding no row', () => {
    const rows = withAuctionCounters([row({ date: '2026-11-02', demand: '3' })], q({ group_by: 'day,demand' }), daily);
    expect(rows.map((r) => [r.date, r.demand, r.bid_requests, r.impressions])).toEqual([
      ['2026-11-01', '3', 10, 0],
      ['2026-11-01', '4', 5, 0],
      ['2026-11-02', '3', 1, 1],
    ]);
  });
});
