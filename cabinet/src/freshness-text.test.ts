import { describe, expect, it } from 'vitest';
import { freshnessText, lagWords } from './freshness-text.ts';

describe("the statistics' freshness notice", () => {
  it('is shown only when the statistics are behind, saying how far', () => {
    const base = { threshold_seconds: 300, measured_at: '2026-11-28T21:00:00.000Z' };
    expect(freshnessText({ ...base, state: 'current', lag_seconds: 12 })).toBeNull();
    expect(freshnessText({ ...base, state: 'unknown', lag_seconds: null, measured_at: null })).toBeNull();
    expect(freshnessText({ ...base, state: 'behind', lag_seconds: 420 })).toBe(
      'Statistics are about 7 minutes behind: the newest events are not counted here yet. The figures will catch up; no event is lost.',
    );
  });

  it('words a lag in seconds, minutes or hours', () => {
    expect(lagWords(2)).toBe('2 seconds');
    expect(lagWords(89)).toBe('89 seconds');
    expect(lagWords(301)).toBe('5 minutes');
    expect(lagWords(3_600)).toBe('60 minutes');
    expect(lagWords(5_400)).toBe('2 hours');
    expect(lagWords(3 * 86_400)).toBe('72 hours');
  });
});
