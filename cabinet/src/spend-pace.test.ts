import { describe, expect, it } from 'vitest';
import { daysLeftText } from './spend-pace.ts';

const week = ['2026-11-17', '2026-11-18', '2026-11-19', '2026-11-20', '2026-11-21', '2026-11-22', '2026-11-23'];

describe('days of spend left', () => {
  it('divides the balance by the daily spend since the first day with spend', () => {
    // $10 a day over the whole week: $95 lasts 9 days.
    expect(
      daysLeftText(
        9_500,
        week,
        week.map((date) => ({ date, spent_cents: 1_000 })),
      ),
    ).toBe('about 9 days of spend left');
    // Started yesterday: $30 over two days, not over seven.
    const rows = [
      { date: '2026-11-22', spent_cents: 1_000 },
      { date: '2026-11-23', spent_cents: 2_000 },
    ];
    expect(daysLeftText(1_500, week, rows)).toBe('about 1 day of spend left');
    expect(daysLeftText(1_000, week, rows)).toBe('less than a day of spend left');
    expect(daysLeftText(1_500_000, week, rows)).toBe('about 1,000 days of spend left');
  });

  it('says so when nothing was spent or nothing can be', () => {
    expect(daysLeftText(5_000, week, [{ date: '2026-11-01', spent_cents: 900 }])).toBe('no spend in the last 7 days');
    expect(daysLeftText(0, week, [{ date: '2026-11-23', spent_cents: 900 }])).toBe('campaigns cannot spend');
    expect(daysLeftText(-48, week, [])).toBe('campaigns cannot spend');
  });
});
