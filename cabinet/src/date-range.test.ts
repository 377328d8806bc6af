import { describe, expect, it } from 'vitest';
import { dayIn, presetRange, shiftDay } from './date-range.ts';

describe('date presets', () => {
  const now = Date.parse('2026-03-01T02:30:00Z');

  it('counts days in the chosen time zone', () => {
    expect(dayIn(now, 'UTC')).toBe('2026-03-01');
    expect(dayIn(now, 'America/New_York')).toBe('2026-02-28');
  });

  it('gives inclusive ranges, across month ends', () => {
    expect(presetRange('today', now, 'UTC')).toEqual({ from: '2026-03-01', to: '2026-03-01' });
    expect(presetRange('yesterday', now, 'UTC')).toEqual({ from: '2026-02-28', to: '2026-02-28' });
    expect(presetRange('last_7_days', now, 'UTC')).toEqual({ from: '2026-02-23', to: '2026-03-01' });
    expect(presetRange('last_30_days', now, 'America/New_York')).toEqual({ from: '2026-01-30', to: '2026-02-28' });
    expect(presetRange('this_month', now, 'America/New_York')).toEqual({ from: '2026-02-01', to: '2026-02-28' });
  });

  it('steps by calendar days across a daylight-saving change, where 24 hours back lands two dates back', () => {
    // 00:30 on 30 March 2026 in Berlin, the day after clocks went forward: 24 hours earlier is 28 March.
    const afterSpringForward = Date.parse('2026-03-29T22:30:00Z');
    expect(dayIn(afterSpringForward - 86_400_000, 'Europe/Berlin')).toBe('2026-03-28');
    expect(shiftDay(dayIn(afterSpringForward, 'Europe/Berlin'), -1)).toBe('2026-03-29');
    expect(presetRange('yesterday', afterSpringForward, 'Europe/Berlin')).toEqual({
      from: '2026-03-29',
      to: '2026-03-29',
    });
  });
});
