import { describe, expect, it } from 'vitest';
import { buildEstimateQuery, daypartSlots, toMatchedTraffic } from './estimate-query.ts';

describe('the estimate query', () => {
  it('turns dayparting into local weekday-hours, Monday 00:00 as 0 and Sunday 23:00 as 167', () => {
    expect(daypartSlots(null)).toBeUndefined();
    expect(daypartSlots({ mon: [0, 9], sun: [23] })).toEqual([0, 9, 167]);
  });

  it('binds every value as a parameter and reads only the window', () => {
    const { sql, params } = buildEstimateQuery(
      'adnet',
      {
        countries: ["us' OR 1=1 --"],
        devices: [],
        oses: ['ios'],
        browsers: [],
        formatZones: [3, 4],
        exchange: false,
        sources: { mode: 'exclude', zones: [3], sites: [] },
        slots: [9],
        timezone: 'Europe/Berlin',
      },
      { now: new Date('2026-11-29T07:30:00Z'), days: 7 },
    );
    expect(sql).not.toContain('OR 1=1');
    expect(sql).not.toContain('device IN');
    expect(sql).toContain('NOT (zone_id IN {sourceZones:Array(UInt32)}');
    expect(sql).toContain('zone_id IN {formatZones:Array(UInt32)}');
    expect(sql).not.toContain('zone_id = 0');
    // Up to the end of the current hour, 7 x 24 hours back.
    expect(params.to).toBe(Date.parse('2026-11-29T08:00:00Z') / 1000);
    expect(params.from).toBe(Date.parse('2026-11-22T08:00:00Z') / 1000);
    expect(params).toMatchObject({ countries: ["us' OR 1=1 --"], oses: ['ios'], slots: [9], tz: 'Europe/Berlin' });
  });

  it('counts unsold requests apart from the sold ones by price (sums arrive as strings)', () => {
    const traffic = toMatchedTraffic(
      [
        { price_bucket: 0, requests: '10', sold: '0', sold_micro_cents: '0' },
        { price_bucket: 582, requests: '4', sold: '4', sold_micro_cents: '400000' },
      ],
      7,
    );
    expect(traffic).toEqual({ windowDays: 7, unsold: 10, buckets: [{ sold: 4, soldMicroCents: 400_000 }] });
  });
});
