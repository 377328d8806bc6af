import { INTEGRATIONS } from '@adnet/schemas/events';
import { CAMPAIGN_FORMATS } from '@adnet/schemas/formats';
import type { EngineEvent, EventFields } from '@adnet/schemas/events';
import { COUNTRY_CODES } from '@adnet/schemas/geo';
import { RowBinaryWriter } from './row-binary-writer.ts';

/** One row of `events` (admin/src/clickhouse/migrations.ts); absent facts are zero or empty. */
export interface EventRow {
  id: string;
  type: string;
  ts: string;
  engine: string;
  auction_id: string;
  bid_id: string;
  partner_id: number;
  campaign_id: number;
  creative_id: number;
  advertiser_id: number;
  publisher_id: number;
  site_id: number;
  zone_id: number;
  price_micro_cents: number;
  charge_nano: number;
  reason: string;
  country: string;
  device: string;
  os: string;
  browser: string;
  site_domain: string;
  invalid: number;
  source: string;
  /** The demand partner (DSP) that bought the impression; 0 for our own campaigns (migration step 6). */
  demand_partner_id: number;
  /** How the traffic reached us (migration step 8): one of `INTEGRATIONS`, '' when unknown. */
  integration: string;
  /** A conversion's payout in cents, the advertiser's revenue (migration step 9); 0 on every other event. */
  payout_cents: number;
  /** The event's `format`, the ad's as served (migration step 11): one of `CAMPAIGN_FORMATS`, '' when unknown. */
  ad_format: string;
}

/** The columns of an insert, in the order of `toRowValues`. */
export const EVENT_COLUMNS = [
  'id',
  'type',
  'ts',
  'engine',
  'auction_id',
  'bid_id',
  'partner_id',
  'campaign_id',
  'creative_id',
  'advertiser_id',
  'publisher_id',
  'site_id',
  'zone_id',
  'price_micro_cents',
  'charge_nano',
  'reason',
  'country',
  'device',
  'os',
  'browser',
  'site_domain',
  'invalid',
  'source',
  'demand_partner_id',
  'integration',
  'payout_cents',
  'ad_format',
] as const satisfies readonly (keyof EventRow)[];

/** A row as the values of `EVENT_COLUMNS`, in order: what a JSONCompactEachRow insert sends. */
export type EventRowValues = ValuesOf<typeof EVENT_COLUMNS, EventRow>;
type ValuesOf<T extends readonly (keyof EventRow)[], R extends EventRow | FactRow> = {
  -readonly [K in keyof T]: R[T[K] & keyof R];
};
/** A row with `ts` still in epoch milliseconds (what RowBinary sends). */
type FactRow = Omit<EventRow, 'ts'> & { ts: number };
type RowFacts = ValuesOf<typeof EVENT_COLUMNS, FactRow>;

export function toRowValues(event: EngineEvent): EventRowValues {
  return valuesOf(event, rowFacts(event));
}

/** The row's values for an insert's body, or why they do not fit the table (`rowProblem`), its facts worked out once. */
export function checkedRowValues(event: EngineEvent): EventRowValues | string {
  if (!isRecord(event)) return NOT_AN_EVENT;
  const facts = rowFacts(event);
  return factsProblem(facts) ?? valuesOf(event, facts);
}

function valuesOf(event: EngineEvent, facts: RowFacts): EventRowValues {
  const values = facts as unknown as EventRowValues;
  // DateTime64(3) text in UTC: 'YYYY-MM-DD hh:mm:ss.sss'.
  values[2] = new Date(event.ts).toISOString().replace('T', ' ').slice(0, 23);
  return values;
}

function rowFacts(event: EngineEvent): RowFacts {
  // Seen flat: every type's fields, each absent one a zero or an empty string in the row.
  const e: EventFields = event;
  return [
    event.id,
    event.type,
    event.ts,
    event.engine,
    e.auction_id ?? '',
    e.bid_id ?? '',
    e.partner_id ?? 0,
    e.campaign_id ?? 0,
    e.creative_id ?? 0,
    e.advertiser_id ?? 0,
    e.publisher_id ?? 0,
    e.site_id ?? 0,
    e.zone_id ?? 0,
    e.price_micro_cents ?? 0,
    e.charge_nano ?? 0,
    e.reason ?? '',
    // Engines write only ISO codes; a stream entry from anywhere else must not put its text in the statistics.
    e.country && COUNTRY_CODES.has(e.country) ? e.country : '',
    e.device ?? '',
    e.os ?? '',
    e.browser ?? '',
    e.site_domain ?? '',
    e.invalid ? 1 : 0,
    // Engines bound it (engine/src/inventory/source.ts); an entry from anywhere else is cut to the same length.
    (e.source ?? '').slice(0, 64),
    e.demand_partner_id ?? 0,
    integrationOf(e),
    e.payout_cents ?? 0,
    formatOf(e),
  ];
}

/**
 * The type each of `EVENT_COLUMNS` has in a RowBinary body (`EVENT_ROW_BINARY_STRUCTURE`): a
 * LowCardinality(String) column is written as a String, the insert converts it.
 */
export const ROW_BINARY_TYPES = [
  'String', // id
  'String', // type
  "DateTime64(3, 'UTC')", // ts: an Int64 of milliseconds
  'String', // engine
  'String', // auction_id
  'String', // bid_id
  'UInt32', // partner_id
  'UInt32', // campaign_id
  'UInt32', // creative_id
  'UInt32', // advertiser_id
  'UInt32', // publisher_id
  'UInt32', // site_id
  'UInt32', // zone_id
  'Int64', // price_micro_cents
  'Int64', // charge_nano
  'String', // reason
  'String', // country
  'String', // device
  'String', // os
  'String', // browser
  'String', // site_domain
  'UInt8', // invalid
  'String', // source
  'UInt32', // demand_partner_id
  'String', // integration
  'Int64', // payout_cents
  'String', // ad_format
] as const satisfies { length: (typeof EVENT_COLUMNS)['length'] };

/** The structure of `eventsRowBinary`'s body, as ClickHouse's `file()` and `format()` take it. */
export const EVENT_ROW_BINARY_STRUCTURE = EVENT_COLUMNS.map((c, i) => `${c} ${ROW_BINARY_TYPES[i]}`).join(', ');

/** A row the events table's columns cannot hold: its place in the batch (0-based) and why. */
export interface RejectedRow {
  at: number;
  reason: string;
}

/**
 * The rows of `events` as one RowBinary body, columns in `EVENT_COLUMNS`' order. A value outside its column's
 * type (`rowProblem`) rejects its row, given to `reject` and left out of the body; without `reject` it throws.
 */
export function eventsRowBinary(events: readonly EngineEvent[], reject?: (row: RejectedRow) => void): Buffer {
  const w = new RowBinaryWriter(events.length * 160);
  for (let r = 0; r < events.length; r++) {
    const reason = writeEventRow(w, events[r] as EngineEvent);
    if (reason === undefined) continue;
    if (!reject) throw new Error(reason);
    reject({ at: r, reason });
  }
  return w.body();
}

/**
 * Writes one event's row; a row that does not fit (`rowProblem`) is taken back and its reason returned.
 * Each value is checked as it is written, as `factsProblem` checks it.
 */
export function writeEventRow(w: RowBinaryWriter, event: EngineEvent): string | undefined {
  if (!isRecord(event)) return NOT_AN_EVENT;
  const facts = rowFacts(event);
  const rowStart = w.at;
  for (let c = 0; c < ROW_BINARY_TYPES.length; c++) {
    const v = facts[c];
    let fits = true;
    switch (ROW_BINARY_TYPES[c]) {
      case 'String':
        if ((fits = typeof v === 'string')) w.string(v);
        break;
      case 'UInt32':
        if ((fits = Number.isInteger(v) && (v as number) >= 0 && (v as number) <= UINT32_MAX)) w.uint32(v as number);
        break;
      case 'Int64':
      case "DateTime64(3, 'UTC')":
        if ((fits = Number.isSafeInteger(v) && (c !== TS_COLUMN || ((v as number) >= 0 && (v as number) <= TS_MAX_MS))))
          w.int64(v as number);
        break;
      case 'UInt8':
        w.byte(v as number);
        break;
      case undefined: // past the end: the loop stops before
        break;
    }
    if (!fits) {
      w.at = rowStart;
      return misfitReason(c, v);
    }
  }
  return undefined;
}

const KNOWN_INTEGRATIONS: ReadonlySet<string> = new Set(INTEGRATIONS);
/**
 * The event's integration. The OpenRTB route's bid and no-bid events leave it out (one field less on every
 * bid): an event of a partner's request (`partner_id`) is OpenRTB's, as it was before events carried it.
 * Anything but a known name (an entry written by something else) is '' rather than a new dimension value.
 */
function integrationOf(e: EventFields): string {
  const named: unknown = e.integration;
  if (typeof named === 'string') return KNOWN_INTEGRATIONS.has(named) ? named : '';
  return e.partner_id ? 'openrtb' : '';
}

const KNOWN_FORMATS: ReadonlySet<string> = new Set(CAMPAIGN_FORMATS);
/** The event's format as served; anything but a known name (an entry written by something else) is ''. */
function formatOf(e: EventFields): string {
  const named: unknown = e.format;
  return typeof named === 'string' && KNOWN_FORMATS.has(named) ? named : '';
}

export const NOT_AN_EVENT = 'not an event (an object)';
export const UINT32_MAX = 4_294_967_295;
const TS_COLUMN = EVENT_COLUMNS.indexOf('ts');
/** ts bounds: the hourly tables' `hour` is a DateTime (seconds since 1970 in 32 bits); later or earlier wraps there. */
export const TS_MAX_MS = 4_294_967_295_000;

/**
 * Why an event's row does not fit the events table (undefined: it fits): each value checked against its
 * column's type. ClickHouse would refuse some (a negative or fractional id, a fraction of a nano-cent as
 * text) and silently wrap others (an id over 2^32 as RowBinary, a year past 2106 in the hourly `DateTime`),
 * so a row another writer got wrong must not reach it either way: a wrapped id counts under another
 * campaign. Ids and money are rejected, never clamped: a nearest value would be someone else's.
 */
export function rowProblem(event: EngineEvent): string | undefined {
  return isRecord(event) ? factsProblem(rowFacts(event)) : NOT_AN_EVENT;
}

function factsProblem(facts: RowFacts): string | undefined {
  for (let c = 0; c < ROW_BINARY_TYPES.length; c++) {
    const v: unknown = facts[c];
    let fits: boolean;
    switch (ROW_BINARY_TYPES[c]) {
      case 'String':
        fits = typeof v === 'string';
        break;
      case 'UInt32':
        fits = Number.isInteger(v) && (v as number) >= 0 && (v as number) <= UINT32_MAX;
        break;
      case 'Int64':
        fits = Number.isSafeInteger(v);
        break;
      case "DateTime64(3, 'UTC')":
        fits = Number.isSafeInteger(v) && (v as number) >= 0 && (v as number) <= TS_MAX_MS;
        break;
      default: // UInt8 (`invalid`): 0 or 1 by construction
        fits = true;
    }
    if (!fits) return misfitReason(c, v);
  }
  return undefined;
}

export const misfitReason = (column: number, v: unknown) =>
  `${EVENT_COLUMNS[column]}: ${describe(v)} does not fit ${ROW_BINARY_TYPES[column]}`;

const isRecord = (v: unknown): boolean => typeof v === 'object' && v !== null && !Array.isArray(v);

function describe(v: unknown): string {
  if (typeof v === 'string') return `string ${JSON.stringify(v.slice(0, 40))}`;
  if (typeof v === 'number' || typeof v === 'bigint' || typeof v === 'boolean') return `${typeof v} ${String(v)}`;
  return v === null ? 'null' : Array.isArray(v) ? 'an array' : typeof v;
}

/** The same row with its column names (JSONEachRow). */
export function toRow(event: EngineEvent): EventRow {
  const values = toRowValues(event);
  return Object.fromEntries(EVENT_COLUMNS.map((c, i) => [c, values[i]])) as unknown as EventRow;
}
