import { describe, expect, it } from 'vitest';
import { estimateLines } from './estimate-text.ts';

const figures = {
  window_days: 7,
  requests_per_day: 12_345.6,
  impressions_per_day: 4_000.4,
  win_rate: 0.3241,
  spend_per_day_usd: 4.5,
  cpm_percentiles_usd: { p25: 0.6, p50: 1, p75: 1.5, p90: 2.25 },
  min_bid_usd: 0.35001,
  recommended_bid_usd: 1.50001,
};

describe('the estimate beside the bid', () => {
  it('says the traffic found, what the bid wins of it and the bids to consider', () => {
    expect(estimateLines(figures, 'cpm')).toEqual([
      'About 12,346 matching requests a day (last 7 days).',
      'This bid wins 32.4 % of them: about 4,000 impressions and $4.50 a day within the budget.',
      'Winning prices (CPM): $0.60 / $1.00 / $1.50 / $2.25 (p25 / p50 / p75 / p90).',
      'Minimum CPM bid $0.35001; recommended $1.50001.',
    ]);
  });

  it('names the CPC bids as such and leaves out prices nobody paid', () => {
    const lines = estimateLines(
      { ...figures, cpm_percentiles_usd: { p25: null, p50: null, p75: null, p90: null } },
      'cpc',
    );
    expect(lines.at(-1)).toBe('Minimum CPC bid $0.35001; recommended $1.50001.');
    expect(lines.some((l) => l.startsWith('Winning prices'))).toBe(false);
  });

  it('says when nothing matches', () => {
    expect(estimateLines({ ...figures, requests_per_day: 0 }, 'cpm')).toEqual([
      'No matching traffic in the last 7 days: widen the targeting to reach any.',
    ]);
  });
});
