import { describe, expect, it } from 'vitest';
import { advStatsQuerySchema, pubStatsQuerySchema, spendRebuildInputSchema, statsQuerySchema } from './stats.ts';

const fieldsOf = (r: { success: boolean; error?: { issues: { path: PropertyKey[] }[] } }) =>
  [...new Set(r.error?.issues.map((i) => String(i.path[0])))].sort();

describe('statistics query validation', () => {
  it('names every invalid field at once, the date order included', () => {
    const r = statsQuerySchema.safeParse({
      from: '2026-03-01',
      to: '2026-02-01',
      group_by: 'day,color',
      tz: 'Mars/Olympus',
      format: 'xml',
    });
    expect(fieldsOf(r)).toEqual(['format', 'from', 'group_by', 'tz']);
  });

  it("checks the publishers' dimensions beside the other fields", () => {
    expect(
      fieldsOf(pubStatsQuerySchema.safeParse({ from: '2026-02-30', to: '2026-03-01', group_by: 'campaign' })),
    ).toEqual(['from', 'group_by']);
    expect(pubStatsQuerySchema.safeParse({ from: '2026-03-01', to: '2026-03-01', group_by: 'site,zone' }).success).toBe(
      true,
    );
  });

  it('lets publishers and admins group by demand, and not advertisers (their statistics are their own campaigns)', () => {
    const q = { from: '2026-03-01', to: '2026-03-01', group_by: 'day,demand' };
    expect(pubStatsQuerySchema.safeParse(q).success).toBe(true);
    expect(statsQuerySchema.safeParse(q).success).toBe(true);
    const adv = advStatsQuerySchema.safeParse(q);
    expect(fieldsOf(adv)).toEqual(['group_by']);
    expect(adv.error?.issues[0]?.message).toMatch(/^advertisers group by .*source, integration, format$/);
    expect(advStatsQuerySchema.safeParse({ ...q, group_by: 'day,source' }).success).toBe(true);
    // How the traffic reached us is everyone's to see.
    for (const schema of [advStatsQuerySchema, pubStatsQuerySchema, statsQuerySchema])
      expect(schema.safeParse({ ...q, group_by: 'day,integration' }).success).toBe(true);
    // So is the format of the ad as served.
    for (const schema of [advStatsQuerySchema, pubStatsQuerySchema, statsQuerySchema])
      expect(schema.safeParse({ ...q, group_by: 'format,day' }).success).toBe(true);
  });
});

describe('spend rebuild day', () => {
  it('is a day that exists (ClickHouse would read 2026-02-30 as March 2nd and the rebuild would write a pool no engine reads)', () => {
    for (const day of ['2026-02-30', '2026-13-01', '9999-99-99', '0000-00-00', '2026-2-1', 'yesterday'])
      expect(spendRebuildInputSchema.safeParse({ day }).success, day).toBe(false);
    for (const day of ['2024-02-29', '2026-11-23'])
      expect(spendRebuildInputSchema.safeParse({ day }).success, day).toBe(true);
  });
});
