import { describe, expect, it } from 'vitest';
import { daysOf, fillSlots, hoursOf } from './series.ts';

describe('filling statistics slots', () => {
  it('lists every day of a range, month ends included', () => {
    expect(daysOf('2026-02-27', '2026-03-02')).toEqual(['2026-02-27', '2026-02-28', '2026-03-01', '2026-03-02']);
    expect(daysOf('2026-03-02', '2026-03-01')).toEqual([]);
  });

  it('lists 24 hours a day in the API format', () => {
    const hours = hoursOf('2026-01-01', '2026-01-02');
    expect(hours).toHaveLength(48);
    expect(hours[0]).toBe('2026-01-01 00:00');
    expect(hours[47]).toBe('2026-01-02 23:00');
  });

  it('keeps rows with traffic and draws silent days as zero', () => {
    const rows = [{ date: '2026-01-02', impressions: 5, clicks: 1 }];
    expect(fillSlots(daysOf('2026-01-01', '2026-01-03'), rows, 'date', ['impressions', 'clicks'])).toEqual([
      { date: '2026-01-01', impressions: 0, clicks: 0 },
      { date: '2026-01-02', impressions: 5, clicks: 1 },
      { date: '2026-01-03', impressions: 0, clicks: 0 },
    ]);
  });
});
