import { describe, expect, it } from 'vitest';
import { candidateFixture, impFixture } from '../../../test/fixtures/auction-fixtures.ts';
import { outsideScheduleFilter } from './outside-schedule.ts';

describe('outside schedule filter', () => {
  it("bids only in the dayparting's hours, in the campaign's time zone", () => {
    // Weekdays 9-17 in New York (EST, UTC-5 in January).
    const hours = [9, 10, 11, 12, 13, 14, 15, 16, 17];
    const c = candidateFixture({
      dayparting: { mon: hours, tue: hours, wed: hours, thu: hours, fri: hours },
      timezone: 'America/New_York',
    });
    const at = (iso: string) => impFixture({ ts: Date.parse(iso) });
    // Monday 5 January 2026, 13:59 UTC = 08:59 in New York.
    expect(outsideScheduleFilter.reject(c, at('2026-01-05T13:59:00Z'))).toBe(true);
    expect(outsideScheduleFilter.reject(c, at('2026-01-05T14:00:00Z'))).toBe(false);
    expect(outsideScheduleFilter.reject(c, at('2026-01-05T22:59:59Z'))).toBe(false);
    expect(outsideScheduleFilter.reject(c, at('2026-01-05T23:00:00Z'))).toBe(true);
    // Saturday noon in New York.
    expect(outsideScheduleFilter.reject(c, at('2026-01-10T17:00:00Z'))).toBe(true);
  });

  it('lets a campaign without dayparting bid at any hour', () => {
    expect(
      outsideScheduleFilter.reject(
        candidateFixture({ end_at: '2099-01-01T00:00:00Z' }),
        impFixture({ ts: Date.parse('2026-01-10T03:00:00Z') }),
      ),
    ).toBe(false);
    expect(outsideScheduleFilter.reject(candidateFixture(), impFixture({ ts: 0 }))).toBe(false);
  });
});
