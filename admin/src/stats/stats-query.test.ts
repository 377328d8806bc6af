import { statsQuerySchema } from '@adnet/schemas/stats';
import { describe, expect, it } from 'vitest';
import {
  buildStatsQuery,
  buildUncountedQuery,
  publisherEarningsCents,
  roiOf,
  statsCsv,
  toStatsRows,
  toUncountedRows,
  withZoneSubids,
} from './stats-query.ts';

const q = (raw: Record<string, string>) => statsQuerySchema.parse(raw);

describe('buildStatsQuery', () => {
  it('binds every value as a parameter', () => {
    const query = q({
      from: '2026-01-01',
      to: '2026-01-31',
      group_by: 'day,campaign,geo',
      tz: 'Europe/Berlin',
      campaign_id: '7',
    });
    const { sql, params } = buildStatsQuery('adnet', query, { advertiserId: 42 });
    expect(params).toEqual({ tz: 'Europe/Berlin', from: '2026-01-01', to: '2026-01-31', advertiser: 42, campaign: 7 });
    for (const value of ['Europe/Berlin', '2026-01-01', '42']) expect(sql).not.toContain(value);
    expect(sql).toContain('{advertiser:UInt32}');
    expect(sql).toContain('GROUP BY k_date, k_campaign_id, k_geo');
  });
  it('defaults to rows per day and leaves out the advertiser filter for admins', () => {
    const { sql, params } = buildStatsQuery('adnet', q({ from: '2026-01-01', to: '2026-01-01' }), {});
    expect(sql).toContain('GROUP BY k_date');
    expect(params).not.toHaveProperty('advertiser');
    // Fallback rows belong to no advertiser.
    expect(sql).toContain('advertiser_id != 0');
    expect(sql).not.toContain('fallbacks');
    expect(sql).not.toContain('unfilled');
  });
  it("counts a publisher's fallbacks", () => {
    const { sql } = buildStatsQuery('adnet', q({ from: '2026-01-01', to: '2026-01-01' }), { publisherId: 9 });
    expect(sql).toContain('sum(fallbacks) AS fallbacks');
    expect(sql).toContain('sum(unfilled) AS unfilled');
    expect(sql).not.toContain('advertiser_id != 0');
  });
});

describe('buildUncountedQuery', () => {
  it("reads one publisher's uncounted traffic, a row per kind and reason in each group", () => {
    const query = q({ from: '2026-01-01', to: '2026-01-02', group_by: 'day,zone' });
    const { sql, params } = buildUncountedQuery('adnet', query, 42);
    expect(params).toEqual({ tz: 'UTC', from: '2026-01-01', to: '2026-01-02', publisher: 42 });
    expect(sql).toContain('FROM adnet.uncounted_hourly');
    expect(sql).toContain('publisher_id = {publisher:UInt32}');
    expect(sql).toContain('GROUP BY k_date, k_zone_id, of, reason ORDER BY k_date, k_zone_id, of, reason');
    expect(
      toUncountedRows(
        [{ k_date: '2026-01-01', k_zone_id: '7', of: 'request', reason: 'foreign_origin', events: '12' }],
        query,
      ),
    ).toEqual([{ date: '2026-01-01', zone_id: 7, of: 'request', reason: 'foreign_origin', events: 12 }]);
  });
});

describe('revenue and ROI', () => {
  it('asks for the revenue of advertisers and admins, never of publishers', () => {
    const query = q({ from: '2026-01-01', to: '2026-01-01', group_by: 'zone' });
    expect(buildStatsQuery('adnet', query, { advertiserId: 4 }).sql).toContain('sum(revenue_cents) AS revenue_cents');
    expect(buildStatsQuery('adnet', query, {}).sql).toContain('sum(revenue_cents) AS revenue_cents');
    expect(buildStatsQuery('adnet', query, { publisherId: 4 }).sql).not.toContain('revenue');
  });

  it('is (revenue - spend) / spend from the exact spend, to four places, and 0 without spend', () => {
    // $10 spent, $25 earned back: +150 %.
    expect(roiOf(2_500, 10_000_000_000)).toBe(1.5);
    expect(roiOf(0, 10_000_000_000)).toBe(-1);
    expect(roiOf(100, 10_000_000_000)).toBe(-0.9);
    // 0.4 cents of spend (0 whole cents) and a cent back: the nano-dollars, not the rounded cents, decide it.
    expect(roiOf(1, 4_000_000)).toBe(1.5);
    expect(roiOf(500, 0)).toBe(0);
    expect(roiOf(0, 0)).toBe(0);
  });

  it('puts revenue_cents and roi in every row and the CSV when the query asked for them', () => {
    const query = q({ from: '2026-01-01', to: '2026-01-01', group_by: 'day,zone', format: 'csv' });
    const counts = { impressions: 10, viewable_impressions: 0, clicks: 2, invalid_clicks: 0, conversions: 1 };
    const rows = toStatsRows(
      [
        { k_date: '2026-01-01', k_zone_id: 7, ...counts, spent_nano: '2000000000', revenue_cents: '500' },
        { k_date: '2026-01-01', k_zone_id: 8, ...counts, spent_nano: 0, revenue_cents: 0 },
      ],
      query,
    );
    expect(rows.map((r) => [r.zone_id, r.spent_cents, r.revenue_cents, r.roi])).toEqual([
      [7, 200, 500, 1.5],
      [8, 0, 0, 0],
    ]);
    const csv = statsCsv(rows, query).trim().split('\n');
    expect(csv[0]?.endsWith(',ecpa_cents,revenue_cents,roi,spent_nano')).toBe(true);
    expect(csv[1]?.endsWith(',200,1,200,500,1.5,2000000000')).toBe(true);
    // A publisher's rows (no revenue asked for) carry neither.
    const pub = toStatsRows([{ k_date: '2026-01-01', k_zone_id: 7, ...counts, spent_nano: 5 }], query);
    expect(pub[0]).not.toHaveProperty('revenue_cents');
    expect(pub[0]).not.toHaveProperty('roi');
  });
});

describe('toStatsRows', () => {
  it('writes the OS and browser dimensions as text, an unknown one empty', () => {
    const query = q({ from: '2026-01-01', to: '2026-01-01', group_by: 'os,browser' });
    expect(buildStatsQuery('adnet', query, {}).sql).toContain('os AS k_os, browser AS k_browser');
    const counts = {
      impressions: 1,
      viewable_impressions: 0,
      clicks: 0,
      invalid_clicks: 0,
      conversions: 0,
      spent_nano: 0,
    };
    expect(
      toStatsRows(
        [
          { k_os: 'ios', k_browser: 'safari', ...counts },
          { k_os: '', k_browser: '', ...counts },
        ],
        query,
      ).map((r) => [r.os, r.browser]),
    ).toEqual([
      ['ios', 'safari'],
      ['', ''],
    ]);
  });

  it('derives ctr, spend in cents and eCPA exactly, from numbers or strings', () => {
    const query = q({ from: '2026-01-01', to: '2026-01-01', group_by: 'campaign' });
    const rows = toStatsRows(
      [
        {
          k_campaign_id: '3',
          impressions: '3000',
          viewable_impressions: '1800',
          clicks: '7',
          invalid_clicks: '2',
          conversions: '3',
          spent_nano: '10012345678',
          revenue_cents: '3003',
        },
        {
          k_campaign_id: 4,
          impressions: 0,
          viewable_impressions: 0,
          clicks: 0,
          invalid_clicks: 0,
          conversions: 0,
          spent_nano: 0,
          revenue_cents: 0,
        },
      ],
      query,
    );
    expect(rows).toEqual([
      {
        campaign_id: 3,
        impressions: 3000,
        viewable_impressions: 1800,
        clicks: 7,
        invalid_clicks: 2,
        ctr: 0.23,
        spent_cents: 1001,
        // The exact spend beside its cents: $10.012345678.
        spent_nano: 10_012_345_678,
        conversions: 3,
        ecpa_cents: 333,
        revenue_cents: 3003,
        // 30.03 back on 10.012345678 spent.
        roi: 1.9993,
      },
      {
        campaign_id: 4,
        impressions: 0,
        viewable_impressions: 0,
        clicks: 0,
        invalid_clicks: 0,
        ctr: 0,
        spent_cents: 0,
        spent_nano: 0,
        conversions: 0,
        ecpa_cents: 0,
        revenue_cents: 0,
        roi: 0,
      },
    ]);
    expect(statsCsv(rows, query).split('\n')[1]).toBe('3,3000,1800,7,2,0.23,1001,3,333,3003,1.9993,10012345678');
  });
  it('CSV cells a spreadsheet would run as a formula come out as text (a country as a partner sent it, say)', () => {
    const query = q({ from: '2026-01-01', to: '2026-01-01', group_by: 'geo,device' });
    const rows = toStatsRows(
      [
        {
          k_geo: '=cmd|calc!A0',
          k_device: '@x,y',
          impressions: 1,
          viewable_impressions: 0,
          clicks: 0,
          invalid_clicks: 0,
          conversions: 0,
          spent_nano: 0,
          revenue_cents: 0,
        },
      ],
      query,
    );
    expect(statsCsv(rows, query).split('\n')[1]).toBe(`"'=cmd|calc!A0","'@x,y",1,0,0,0,0,0,0,0,0,0,0`);
  });
  it('refuses bad parameters', () => {
    expect(statsQuerySchema.safeParse({ from: '2026-01-02', to: '2026-01-01' }).success).toBe(false);
    expect(statsQuerySchema.safeParse({ from: '2025-01-01', to: '2026-01-02' }).success).toBe(false);
    expect(statsQuerySchema.safeParse({ from: '2026-01-01', to: '2026-01-01', group_by: 'day,,x' }).success).toBe(
      false,
    );
  });
});

describe('publisherEarningsCents', () => {
  it('takes the share of spend in whole cents, exactly even past 2^53', () => {
    expect(publisherEarningsCents(10_000_000_000, 70)).toBe(700);
    expect(publisherEarningsCents(14_285_714, 70)).toBe(0);
    expect(publisherEarningsCents('1000000000000000', 70)).toBe(70_000_000);
    expect(publisherEarningsCents(0, 70)).toBe(0);
  });
});

describe('the placement report', () => {
  it('groups by source as text and names each zone by its subid beside its id, in JSON and CSV', () => {
    const query = q({ from: '2026-01-01', to: '2026-01-01', group_by: 'zone,site,source', format: 'csv' });
    expect(buildStatsQuery('adnet', query, { advertiserId: 1 }).sql).toContain(
      'zone_id AS k_zone_id, site_id AS k_site_id, source AS k_source',
    );
    const counts = {
      impressions: 10,
      viewable_impressions: 0,
      clicks: 1,
      invalid_clicks: 0,
      conversions: 1,
      spent_nano: 30_000_000,
    };
    const rows = withZoneSubids(
      toStatsRows(
        [
          { k_zone_id: 7, k_site_id: 3, k_source: 'news.example', ...counts },
          { k_zone_id: 0, k_site_id: 0, k_source: 'com.example.game', ...counts },
        ],
        query,
      ),
      new Map([[7, 'AbC123xyz789']]),
    );
    expect(rows.map((r) => [r.zone_id, r.zone_subid, r.source, r.ecpa_cents])).toEqual([
      [7, 'AbC123xyz789', 'news.example', 3],
      [0, '', 'com.example.game', 3],
    ]);
    expect(statsCsv(rows, query).split('\n')[0]).toBe(
      'zone_id,zone_subid,site_id,source,impressions,viewable_impressions,clicks,invalid_clicks,ctr,spent_cents,conversions,ecpa_cents,revenue_cents,roi,spent_nano',
    );
  });
});
