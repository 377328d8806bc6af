import { WEEKDAYS } from '@adnet/schemas/schedule';
import type { Weekday } from '@adnet/schemas/schedule';
import type { MatchedTraffic } from '../domain/traffic-estimate.ts';

/**
 * The inventory a campaign's targeting matches in `estimate_hourly` (migration step 10), resolved to what the
 * events record. An empty list matches every value, as the campaign's own lists do.
 */
export interface EstimateScope {
  countries: readonly string[];
  devices: readonly string[];
  oses: readonly string[];
  browsers: readonly string[];
  /** Our zones of the campaign's format: the format is the zone's, which events name by id. */
  formatZones: readonly number[];
  /** Whether exchange requests (no zone of ours, no format recorded) count for this format. */
  exchange: boolean;
  /** The campaign's source list, its zones by id. */
  sources?: { mode: 'include' | 'exclude'; zones: readonly number[]; sites: readonly number[] };
  /** The local weekday-hours it serves (0: Monday 00:00 .. 167: Sunday 23:00); absent: every hour. */
  slots?: readonly number[];
  timezone: string;
}

/** Dayparting as weekday-hour slots (see EstimateScope.slots); null: every hour. */
export function daypartSlots(dayparting: Partial<Record<Weekday, number[]>> | null): number[] | undefined {
  if (!dayparting) return undefined;
  return WEEKDAYS.flatMap((day, i) => (dayparting[day] ?? []).map((h) => i * 24 + h));
}

/**
 * The matching requests of the `windowDays` before `now` by price bucket: values are bound as parameters,
 * never pasted into the SQL. Hours are taken in the campaign's time zone, as its dayparting is.
 */
export function buildEstimateQuery(
  database: string,
  scope: EstimateScope,
  window: { now: Date; days: number },
): { sql: string; params: Record<string, unknown> } {
  const hourMs = 3_600_000;
  const to = Math.floor(window.now.getTime() / hourMs) * hourMs + hourMs;
  const params: Record<string, unknown> = {
    from: Math.floor((to - window.days * 24 * hourMs) / 1000),
    to: Math.floor(to / 1000),
    tz: scope.timezone,
  };
  const where = ['hour >= toDateTime({from:UInt32})', 'hour < toDateTime({to:UInt32})'];
  const list = (column: string, name: string, values: readonly (string | number)[], type: string) => {
    if (values.length === 0) return;
    params[name] = values;
    where.push(`${column} IN {${name}:Array(${type})}`);
  };
  list('country', 'countries', scope.countries, 'String');
  list('device', 'devices', scope.devices, 'String');
  list('os', 'oses', scope.oses, 'String');
  list('browser', 'browsers', scope.browsers, 'String');
  params.formatZones = scope.formatZones;
  where.push(
    scope.exchange
      ? '(zone_id = 0 OR zone_id IN {formatZones:Array(UInt32)})'
      : 'zone_id IN {formatZones:Array(UInt32)}',
  );
  if (scope.sources && (scope.sources.zones.length || scope.sources.sites.length)) {
    params.sourceZones = scope.sources.zones;
    params.sourceSites = scope.sources.sites;
    const listed = '(zone_id IN {sourceZones:Array(UInt32)} OR site_id IN {sourceSites:Array(UInt32)})';
    // An include list names only our zones and sites: exchange traffic is on none of them.
    where.push(scope.sources.mode === 'include' ? listed : `NOT ${listed}`);
  }
  if (scope.slots) {
    params.slots = scope.slots;
    where.push(
      '(toDayOfWeek(toTimeZone(hour, {tz:String})) - 1) * 24 + toHour(toTimeZone(hour, {tz:String})) IN {slots:Array(UInt16)}',
    );
  }
  const sql = [
    'SELECT price_bucket, sum(requests) AS requests, sum(sold) AS sold, sum(sold_micro_cents) AS sold_micro_cents',
    `FROM ${database}.estimate_hourly`,
    `WHERE ${where.join(' AND ')}`,
    'GROUP BY price_bucket',
  ].join('\n');
  return { sql, params };
}

/** The query's rows as the estimate's input (ClickHouse answers 64-bit sums as strings). */
export function toMatchedTraffic(rows: readonly Record<string, string | number>[], windowDays: number): MatchedTraffic {
  let unsold = 0;
  const buckets = [];
  for (const r of rows) {
    const sold = Number(r.sold);
    unsold += Number(r.requests) - sold;
    if (sold > 0) buckets.push({ sold, soldMicroCents: Number(r.sold_micro_cents) });
  }
  return { windowDays, unsold, buckets };
}
