import type { StatsDimension, StatsQuery, StatsRow } from '@adnet/schemas/stats';
import { NANO_USD_PER_CENT } from '@adnet/schemas/money';

/** SQL expression and output column per dimension. Only these fixed strings reach the SQL text. */
const DIMENSIONS: Record<StatsDimension, { expr: string; column: keyof StatsRow }> = {
  day: { expr: 'toString(toDate(toTimeZone(hour, {tz:String})))', column: 'date' },
  hour: { expr: "formatDateTime(toTimeZone(hour, {tz:String}), '%Y-%m-%d %H:00')", column: 'hour' },
  campaign: { expr: 'campaign_id', column: 'campaign_id' },
  creative: { expr: 'creative_id', column: 'creative_id' },
  geo: { expr: 'country', column: 'geo' },
  device: { expr: 'device', column: 'device' },
  site: { expr: 'site_id', column: 'site_id' },
  zone: { expr: 'zone_id', column: 'zone_id' },
};

export interface StatsScope {
  /** Restrict to one advertiser (advertisers); absent for admins. */
  advertiserId?: number;
  /** Restrict to one publisher's inventory (publishers). */
  publisherId?: number;
}

/** A publisher's share of spend, in whole cents rounded down (BigInt: spend in nano-dollars times a percentage passes 2^53). */
export function publisherEarningsCents(spentNano: number | string, sharePercent: number): number {
  return Number((BigInt(spentNano) * BigInt(sharePercent)) / 1_000_000_000n);
}

/**
 * The statistics query over the hourly table: values are bound as parameters
 * ({name:Type}), never pasted into the SQL. Days are taken in the query's time
 * zone from UTC hours, so in zones whose offset is not a whole hour a day's
 * edge is rounded to the hour.
 */
export function buildStatsQuery(database: string, q: StatsQuery, scope: StatsScope): { sql: string; params: Record<string, unknown> } {
  const dims = q.group_by.map((d) => DIMENSIONS[d]);
  // Aliases get a prefix: `hour AS hour` would shadow the table's own hour column in WHERE.
  const select = dims.map((d) => `${d.expr} AS k_${d.column}`);
  const where = ['toDate(toTimeZone(hour, {tz:String})) BETWEEN {from:Date} AND {to:Date}'];
  const params: Record<string, unknown> = { tz: q.tz, from: q.from, to: q.to };
  if (scope.advertiserId !== undefined) {
    where.push('advertiser_id = {advertiser:UInt32}');
    params.advertiser = scope.advertiserId;
  }
  if (scope.publisherId !== undefined) {
    where.push('publisher_id = {publisher:UInt32}');
    params.publisher = scope.publisherId;
  }
  if (q.campaign_id !== undefined) {
    where.push('campaign_id = {campaign:UInt32}');
    params.campaign = q.campaign_id;
  }
  const groupBy = dims.map((d) => `k_${d.column}`);
  const sql = [
    `SELECT ${[...select, 'sum(impressions) AS impressions', 'sum(clicks) AS clicks', 'sum(invalid_clicks) AS invalid_clicks', 'sum(conversions) AS conversions', 'sum(spent_nano) AS spent_nano'].join(', ')}`,
    `FROM ${database}.stats_hourly`,
    `WHERE ${where.join(' AND ')}`,
    groupBy.length ? `GROUP BY ${groupBy.join(', ')} ORDER BY ${groupBy.join(', ')}` : '',
  ].join('\n');
  return { sql, params };
}

type Raw = Record<string, string | number>;

/** ClickHouse rows (64-bit numbers arrive as strings over HTTP, numbers from chDB) to API rows. */
export function toStatsRows(raw: Raw[], q: StatsQuery): StatsRow[] {
  return raw.map((r) => {
    const impressions = Number(r.impressions);
    const clicks = Number(r.clicks);
    const conversions = Number(r.conversions);
    const spentCents = Math.floor(Number(r.spent_nano) / NANO_USD_PER_CENT);
    const row: StatsRow = {
      impressions,
      clicks,
      invalid_clicks: Number(r.invalid_clicks),
      // Percent with two decimals; 0 without impressions.
      ctr: impressions ? Math.round((clicks / impressions) * 10_000) / 100 : 0,
      spent_cents: spentCents,
      conversions,
      // Cost per conversion in whole cents, rounded down; 0 when there were no conversions.
      ecpa_cents: conversions ? Math.floor(spentCents / conversions) : 0,
    };
    for (const d of q.group_by) {
      const { column } = DIMENSIONS[d];
      const v = r[`k_${column}`];
      (row as Record<string, unknown>)[column] = column === 'date' || column === 'hour' || column === 'geo' || column === 'device' ? String(v) : Number(v);
    }
    return row;
  });
}

const CSV_ESCAPE = /[",\n\r]/;
export function statsCsv(rows: StatsRow[], q: StatsQuery): string {
  const cols = [
    ...q.group_by.map((d) => DIMENSIONS[d].column),
    'impressions',
    'clicks',
    'invalid_clicks',
    'ctr',
    'spent_cents',
    'conversions',
    'ecpa_cents',
  ] as (keyof StatsRow)[];
  const cell = (v: StatsRow[keyof StatsRow]) => {
    const s = v === undefined ? '' : String(v);
    return CSV_ESCAPE.test(s) ? `"${s.replaceAll('"', '""')}"` : s;
  };
  return [cols.join(','), ...rows.map((r) => cols.map((c) => cell(r[c])).join(','))].join('\n') + '\n';
}
