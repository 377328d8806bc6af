import { describe, expect, it } from 'vitest';
import { figurePeriods, figuresOf } from './campaign-figures.ts';

describe("a campaign page's figures", () => {
  it('covers today, yesterday and the seven days ending today, across a month end', () => {
    const p = figurePeriods('2026-03-02');
    expect(p.today).toEqual({ from: '2026-03-02', to: '2026-03-02' });
    expect(p.yesterday).toEqual({ from: '2026-03-01', to: '2026-03-01' });
    expect(p.last_7_days).toEqual({ from: '2026-02-24', to: '2026-03-02' });
    expect(p.range).toEqual(p.last_7_days);
  });

  it('sums the day rows of each period, with CTR and eCPA from the sums', () => {
    const p = figurePeriods('2026-03-02');
    const rows = [
      { date: '2026-03-02', impressions: 7, clicks: 1, spent_nano: 1_050_000, conversions: 0 },
      { date: '2026-03-01', impressions: '100', clicks: '4', spent_nano: '300000000', conversions: '2' },
      { date: '2026-02-24', impressions: 3, clicks: 0, spent_nano: 5, conversions: 1 },
      // Outside the seven days: left out.
      { date: '2026-02-23', impressions: 1000, clicks: 9, spent_nano: 1, conversions: 9 },
    ];
    expect(figuresOf(rows, p.today)).toEqual({
      impressions: 7,
      clicks: 1,
      ctr: 1 / 7,
      spent_nano: 1_050_000,
      conversions: 0,
      ecpa_nano: null,
    });
    expect(figuresOf(rows, p.yesterday)).toEqual({
      impressions: 100,
      clicks: 4,
      ctr: 0.04,
      spent_nano: 300_000_000,
      conversions: 2,
      ecpa_nano: 150_000_000,
    });
    expect(figuresOf(rows, p.last_7_days)).toMatchObject({
      impressions: 110,
      clicks: 5,
      spent_nano: 301_050_005,
      conversions: 3,
      ecpa_nano: 100_350_002,
    });
    expect(figuresOf([], p.today)).toEqual({
      impressions: 0,
      clicks: 0,
      ctr: 0,
      spent_nano: 0,
      conversions: 0,
      ecpa_nano: null,
    });
  });
});
