import { describe, expect, it } from 'vitest';
import { dayIn, presetRange } from './date-range.ts';

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
});
