import { STATS_DIMENSION_COLUMNS } from '@adnet/schemas/stats';
import type { StatsDimension, StatsQuery, StatsRow, UncountedRow } from '@adnet/schemas/stats';
import { NANO_USD_PER_CENT } from '@adnet/schemas/money';
import { csvTable } from '@adnet/schemas/csv';

/** SQL expression per dimension. Only these fixed strings reach the SQL text. */
const EXPRESSIONS: Record<StatsDimension, string> = {
  day: 'toString(toDate(toTimeZone(hour, {tz:String})))',
  hour: "formatDateTime(toTimeZone(hour, {tz:String}), '%Y-%m-%d %H:00')",
  campaign: 'campaign_id',
  creative: 'creative_id',
  geo: 'country',
  device: 'device',
  os: 'os',
  browser: 'browser',
  site: 'site_id',
  zone: 'zone_id',
  source: 'source',
  // Our campaigns (and fallbacks) have no demand partner (0, migration step 6): named `own`.
  demand: "if(demand_partner_id = 0, 'own', toString(demand_partner_id))",
  integration: 'integration',
  // `ad_format` (migration step 11): a column named `format` would read as ClickHouse's FORMAT clause.
  format: 'ad_format',
};
/** Expression and output column; the column is the one the cabinet reads (schemas/src/stats.ts). */
const dimension = (d: StatsDimension) => ({ expr: EXPRESSIONS[d], column: STATS_DIMENSION_COLUMNS[d] });

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
export function buildStatsQuery(
  database: string,
  q: StatsQuery,
  scope: StatsScope,
): { sql: string; params: Record<string, unknown> } {
  const { select, where, params, groupBy } = grouping(q);
  if (scope.advertiserId !== undefined) {
    where.push('advertiser_id = {advertiser:UInt32}');
    params.advertiser = scope.advertiserId;
  }
  if (scope.publisherId !== undefined) {
    where.push('publisher_id = {publisher:UInt32}');
    params.publisher = scope.publisherId;
  } else if (scope.advertiserId === undefined) {
    // Fallback rows (a zone's own ad, migration step 4) belong to no advertiser: only publishers see them.
    // Demand partners' rows (step 6) have no advertiser either, and admins see them.
    where.push('(advertiser_id != 0 OR demand_partner_id != 0)');
  }
  if (q.campaign_id !== undefined) {
    where.push('campaign_id = {campaign:UInt32}');
    params.campaign = q.campaign_id;
  }
  const sql = [
    `SELECT ${[...select, 'sum(impressions) AS impressions', 'sum(viewable_impressions) AS viewable_impressions', 'sum(clicks) AS clicks', 'sum(invalid_clicks) AS invalid_clicks', 'sum(conversions) AS conversions', 'sum(spent_nano) AS spent_nano', ...(scope.publisherId !== undefined ? ['sum(fallbacks) AS fallbacks', 'sum(unfilled) AS unfilled'] : ['sum(revenue_cents) AS revenue_cents'])].join(', ')}`,
    `FROM ${database}.stats_hourly`,
    `WHERE ${where.join(' AND ')}`,
    groupBy.length ? `GROUP BY ${groupBy.join(', ')} ORDER BY ${groupBy.join(', ')}` : '',
  ].join('\n');
  return { sql, params };
}

/** The grouped columns, the date range in the query's time zone and its parameters: what every hourly query shares. */
function grouping(q: StatsQuery) {
  const dims = q.group_by.map(dimension);
  return {
    // Aliases get a prefix: `hour AS hour` would shadow the table's own hour column in WHERE.
    select: dims.map((d) => `${d.expr} AS k_${d.column}`),
    where: ['toDate(toTimeZone(hour, {tz:String})) BETWEEN {from:Date} AND {to:Date}'],
    params: { tz: q.tz, from: q.from, to: q.to } as Record<string, unknown>,
    groupBy: dims.map((d) => `k_${d.column}`),
  };
}

/**
 * A publisher's traffic that was not counted (admin/src/clickhouse/migrations.ts, `uncounted_hourly`):
 * per group, one row per kind (`of`) and reason.
 */
export function buildUncountedQuery(
  database: string,
  q: StatsQuery,
  publisherId: number,
): { sql: string; params: Record<string, unknown> } {
  const { select, where, params, groupBy } = grouping(q);
  where.push('publisher_id = {publisher:UInt32}');
  params.publisher = publisherId;
  const keys = [...groupBy, 'of', 'reason'];
  const sql = [
    `SELECT ${[...select, 'of', 'reason', 'sum(events) AS events'].join(', ')}`,
    `FROM ${database}.uncounted_hourly`,
    `WHERE ${where.join(' AND ')}`,
    `GROUP BY ${keys.join(', ')} ORDER BY ${keys.join(', ')}`,
  ].join('\n');
  return { sql, params };
}

type Raw = Record<string, string | number>;
const TEXT_COLUMNS: ReadonlySet<keyof StatsRow> = new Set([
  'date',
  'hour',
  'geo',
  'device',
  'os',
  'browser',
  'source',
  'demand',
  'integration',
  'format',
]);

/** The grouped columns of a result row, typed as the API writes them. */
function groupColumns(r: Raw, q: StatsQuery): Partial<StatsRow> {
  const row: Record<string, string | number> = {};
  for (const d of q.group_by) {
    const column = STATS_DIMENSION_COLUMNS[d];
    const v = r[`k_${column}`] ?? '';
    row[column] = TEXT_COLUMNS.has(column) ? String(v) : Number(v);
  }
  return row;
}

export function toUncountedRows(raw: Raw[], q: StatsQuery): UncountedRow[] {
  return raw.map((r) => ({
    ...groupColumns(r, q),
    of: String(r.of) as UncountedRow['of'],
    reason: String(r.reason),
    events: Number(r.events),
  }));
}

/**
 * (revenue - spend) / spend to four places, from the exact spend (nano-dollars) rather than its rounded cents;
 * 0 when nothing was spent, where a ratio would be a division by zero.
 */
export function roiOf(revenueCents: number, spentNano: number): number {
  if (spentNano <= 0) return 0;
  const revenueNano = revenueCents * NANO_USD_PER_CENT;
  return Math.round(((revenueNano - spentNano) / spentNano) * 10_000) / 10_000;
}

/** ClickHouse rows (64-bit numbers arrive as strings over HTTP, numbers from chDB) to API rows. */
export function toStatsRows(raw: Raw[], q: StatsQuery): StatsRow[] {
  return raw.map((r) => {
    const impressions = Number(r.impressions);
    const clicks = Number(r.clicks);
    const conversions = Number(r.conversions);
    const spentNano = Number(r.spent_nano);
    const spentCents = Math.floor(spentNano / NANO_USD_PER_CENT);
    const row: StatsRow = {
      impressions,
      viewable_impressions: Number(r.viewable_impressions),
      clicks,
      invalid_clicks: Number(r.invalid_clicks),
      // Percent with two decimals; 0 without impressions.
      ctr: impressions ? Math.round((clicks / impressions) * 10_000) / 100 : 0,
      spent_cents: spentCents,
      spent_nano: spentNano,
      conversions,
      // Cost per conversion in whole cents, rounded down; 0 when there were no conversions.
      ecpa_cents: conversions ? Math.floor(spentCents / conversions) : 0,
    };
    // Publishers' queries leave revenue out: what an advertiser earns is not theirs to see.
    if (r.revenue_cents !== undefined) {
      row.revenue_cents = Number(r.revenue_cents);
      row.roi = roiOf(row.revenue_cents, spentNano);
    }
    return { ...groupColumns(r, q), ...row };
  });
}

/**
 * Each row's zone subid (the name source lists take) beside its `zone_id`, from `subids` (id to subid);
 * '' for traffic on no zone of ours, or a zone since deleted.
 */
export function withZoneSubids(rows: StatsRow[], subids: ReadonlyMap<number, string>): StatsRow[] {
  return rows.map((r) => (r.zone_id === undefined ? r : { ...r, zone_subid: subids.get(r.zone_id) ?? '' }));
}

/** Each row's demand partner name beside its `demand` (`names`: id to name); '' for `own` or a partner since deleted. */
export function withDemandNames(rows: StatsRow[], names: ReadonlyMap<number, string>): StatsRow[] {
  return rows.map((r) =>
    r.demand === undefined ? r : { ...r, demand_name: r.demand === 'own' ? '' : (names.get(Number(r.demand)) ?? '') },
  );
}

/** The demand partner ids the rows name (not `own`). */
export const demandPartnerIds = (rows: readonly StatsRow[]): number[] => [
  ...new Set(rows.map((r) => Number(r.demand)).filter((id) => Number.isInteger(id) && id > 0)),
];

/** The statistics as CSV, every cell through csvCell (formula starts neutralised, OWASP). */
export function statsCsv(rows: StatsRow[], q: StatsQuery): string {
  const cols = [
    ...q.group_by.flatMap((d): (keyof StatsRow)[] =>
      d === 'zone'
        ? ['zone_id', 'zone_subid']
        : d === 'demand'
          ? ['demand', 'demand_name']
          : [STATS_DIMENSION_COLUMNS[d]],
    ),
    'impressions',
    'viewable_impressions',
    'clicks',
    'invalid_clicks',
    'ctr',
    'spent_cents',
    'conversions',
    'ecpa_cents',
    'revenue_cents',
    'roi',
    // Last, so exports read by column position before it keep their columns.
    'spent_nano',
  ] as (keyof StatsRow)[];
  return csvTable(cols, rows);
}
