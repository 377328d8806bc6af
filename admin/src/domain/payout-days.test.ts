import { describe, expect, it } from 'vitest';
import { addDays, closeWindow, monthRange, newestClosableDay } from './payout-days.ts';

describe('payout days', () => {
  it('holds a day for the hold period after it ends', () => {
    const now = Date.parse('2026-11-23T11:00:00Z');
    expect(newestClosableDay(now, 7)).toBe('2026-11-15');
    expect(newestClosableDay(now, 0)).toBe('2026-11-22');
    // The 15th ended at the 16th 00:00; seven full days later is the 23rd 00:00.
    expect(newestClosableDay(Date.parse('2026-11-22T23:59:59Z'), 7)).toBe('2026-11-14');
  });

  it('re-reads the adjustment window and starts from the beginning the first time', () => {
    const now = Date.parse('2026-11-23T11:00:00Z');
    expect(closeWindow(now, 7, 14, null)).toEqual({ from: '1970-01-01', to: '2026-11-15' });
    expect(closeWindow(now, 7, 14, '2026-11-14')).toEqual({ from: '2026-10-31', to: '2026-11-15' });
    // A shorter hold set later never makes the window start after its end.
    expect(closeWindow(now, 7, 0, '2026-11-20')).toEqual({ from: '2026-11-15', to: '2026-11-15' });
  });

  it('turns months into UTC ranges, leap years included', () => {
    expect(monthRange('2028-02')).toEqual({
      from: '2028-02-01',
      to: '2028-02-29',
      fromMs: Date.UTC(2028, 1, 1),
      toMs: Date.UTC(2028, 2, 1),
    });
    expect(monthRange('2026-12').to).toBe('2026-12-31');
    expect(addDays('2026-12-31', 1)).toBe('2027-01-01');
  });
});
