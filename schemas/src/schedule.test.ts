import { describe, expect, it } from 'vitest';
import { campaignScheduleReason, canonicalTimeZone, compileSchedule, scheduleReason, ZoneClock } from './schedule.ts';

const at = (iso: string) => Date.parse(iso);

describe('time zones', () => {
  it('knows IANA names in any case and aliases, and refuses offsets and unknown names', () => {
    expect(canonicalTimeZone('europe/berlin')).toBe('Europe/Berlin');
    expect(canonicalTimeZone('UTC')).toBe('UTC');
    expect(canonicalTimeZone('US/Eastern')).toBe('America/New_York');
    for (const bad of ['Mars/Olympus', '+01:00', 'GMT+1', '', 'Europe/Berlin; drop'])
      expect(canonicalTimeZone(bad)).toBeUndefined();
  });

  it('tells the local weekday and hour, through daylight saving', () => {
    const berlin = new ZoneClock('Europe/Berlin');
    // Monday 2026-03-23 07:30 UTC is 08:30 in Berlin (CET, +1).
    expect(berlin.weekHour(at('2026-03-23T07:30:00Z'))).toBe(0 * 24 + 8);
    // Monday 2026-03-30 07:30 UTC is 09:30 (CEST, +2).
    expect(berlin.weekHour(at('2026-03-30T07:30:00Z'))).toBe(0 * 24 + 9);
    // Sunday 23:00 UTC is Monday 00:00 in Berlin in winter.
    expect(berlin.weekHour(at('2026-01-04T23:00:00Z'))).toBe(0);
    // Half-hour zones: 2026-01-05 (Monday) 03:29 UTC is 08:59 in Kolkata, 03:30 is 09:00.
    const kolkata = new ZoneClock('Asia/Kolkata');
    expect(kolkata.weekHour(at('2026-01-05T03:29:59Z'))).toBe(8);
    expect(kolkata.weekHour(at('2026-01-05T03:30:00Z'))).toBe(9);
    // The cached minute does not leak into an earlier time.
    expect(kolkata.weekHour(at('2026-01-05T03:29:00Z'))).toBe(8);
  });
});

describe('schedule', () => {
  const campaign = {
    start_at: '2026-03-01T00:00:00+01:00',
    end_at: '2026-04-01T00:00:00Z',
    dayparting: { mon: [9, 10, 11], sat: [0, 23] },
    timezone: 'Europe/Berlin',
  };

  it('has no schedule without start, end or dayparting: always on', () => {
    expect(compileSchedule({})).toBeNull();
    expect(compileSchedule({ timezone: 'Asia/Tokyo', start_at: null, end_at: null, dayparting: null })).toBeNull();
    expect(campaignScheduleReason({}, 0)).toBeUndefined();
  });

  it('tells not started, ended and outside the hours apart; the end is exclusive', () => {
    const s = compileSchedule(campaign);
    // The start, midnight on 1 March in Berlin, is 23:00 UTC the day before.
    expect(scheduleReason(s, at('2026-02-28T22:59:59Z'))).toBe('not_started');
    expect(scheduleReason(s, at('2026-04-01T00:00:00Z'))).toBe('ended');
    // Monday 2 March 09:00 Berlin = 08:00 UTC: inside.
    expect(scheduleReason(s, at('2026-03-02T08:00:00Z'))).toBeUndefined();
    expect(scheduleReason(s, at('2026-03-02T10:59:59Z'))).toBeUndefined();
    // 12:00 Berlin: outside; Tuesday is not listed at all.
    expect(scheduleReason(s, at('2026-03-02T11:00:00Z'))).toBe('outside_schedule');
    expect(scheduleReason(s, at('2026-03-03T08:00:00Z'))).toBe('outside_schedule');
    // Saturday 7 March 23:30 Berlin = 22:30 UTC.
    expect(scheduleReason(s, at('2026-03-07T22:30:00Z'))).toBeUndefined();
  });

  it('reads dayparting in UTC when no zone is given, and a start or end alone', () => {
    expect(campaignScheduleReason({ dayparting: { mon: [0] } }, at('2026-01-05T00:10:00Z'))).toBeUndefined();
    expect(campaignScheduleReason({ dayparting: { mon: [0] } }, at('2026-01-05T01:10:00Z'))).toBe('outside_schedule');
    expect(campaignScheduleReason({ start_at: '2030-01-01T00:00:00Z' }, at('2026-01-01T00:00:00Z'))).toBe(
      'not_started',
    );
    expect(campaignScheduleReason({ end_at: '2020-01-01T00:00:00Z' }, at('2026-01-01T00:00:00Z'))).toBe('ended');
  });
});
