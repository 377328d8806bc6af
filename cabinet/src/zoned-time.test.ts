import { describe, expect, it } from 'vitest';
import { isoToLocal, localToIso, timeZones } from './zoned-time.ts';

describe('date pickers in the campaign time zone', () => {
  it('reads a wall time in the zone, summer and winter, east and west of UTC', () => {
    expect(localToIso('2026-12-01T09:00', 'Europe/Berlin')).toBe('2026-12-01T09:00:00+01:00');
    expect(localToIso('2026-07-01T09:00', 'Europe/Berlin')).toBe('2026-07-01T09:00:00+02:00');
    expect(localToIso('2026-07-01T09:00', 'America/New_York')).toBe('2026-07-01T09:00:00-04:00');
    expect(localToIso('2026-07-01T09:00', 'Asia/Kolkata')).toBe('2026-07-01T09:00:00+05:30');
    expect(localToIso('2026-07-01T09:00', 'UTC')).toBe('2026-07-01T09:00:00+00:00');
  });

  it('leaves empty as none and anything else as typed, for the API to name', () => {
    expect(localToIso('', 'UTC')).toBeNull();
    expect(localToIso('tomorrow', 'UTC')).toBe('tomorrow');
    expect(localToIso('2026-07-01T09:00', 'Mars/Olympus')).toBe('2026-07-01T09:00');
  });

  it('shows a stored instant back as the same wall time in the zone', () => {
    expect(isoToLocal('2026-12-01T08:00:00.000Z', 'Europe/Berlin')).toBe('2026-12-01T09:00');
    expect(isoToLocal(localToIso('2026-03-29T03:30', 'Europe/Berlin'), 'Europe/Berlin')).toBe('2026-03-29T03:30');
    expect(isoToLocal(null, 'UTC')).toBe('');
  });

  it('offers UTC first and the IANA zones', () => {
    const zones = timeZones();
    expect(zones[0]).toBe('UTC');
    expect(zones).toContain('Europe/Berlin');
    expect(new Set(zones).size).toBe(zones.length);
  });
});
