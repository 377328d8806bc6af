import type { EngineEvent, EventFields } from '@adnet/schemas/events';
import { COUNTRY_CODES } from '@adnet/schemas/geo';

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
] as const satisfies readonly (keyof EventRow)[];

/** A row as the values of `EVENT_COLUMNS`, in order: what a JSONCompactEachRow insert sends. */
export type EventRowValues = ValuesOf<typeof EVENT_COLUMNS, EventRow>;
type ValuesOf<T extends readonly (keyof EventRow)[], R extends EventRow | FactRow> = { -readonly [K in keyof T]: R[T[K] & keyof R] };
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
  ];
}

/**
 * The type each of `EVENT_COLUMNS` has in a RowBinary body (`EVENT_ROW_BINARY_STRUCTURE`): a
 * LowCardinality(String) column is written as a String, the insert converts it.
 */
const ROW_BINARY_TYPES = [
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
  let buf = Buffer.allocUnsafe(Math.max(1024, events.length * 160));
  let at = 0;
  const room = (n: number) => {
    if (at + n <= buf.length) return;
    const bigger = Buffer.allocUnsafe(Math.max(buf.length * 2, at + n));
    buf.copy(bigger, 0, 0, at);
    buf = bigger;
  };
  for (let r = 0; r < events.length; r++) {
    const event = events[r] as EngineEvent;
    if (!isRecord(event)) {
      if (!reject) throw new Error(NOT_AN_EVENT);
      reject({ at: r, reason: NOT_AN_EVENT });
      continue;
    }
    const facts = rowFacts(event);
    const rowStart = at;
    // Each value checked as it is written (as `factsProblem` checks it): a row that does not fit is taken back.
    let misfit = -1;
    for (let c = 0; c < ROW_BINARY_TYPES.length && misfit < 0; c++) {
      const v = facts[c];
      switch (ROW_BINARY_TYPES[c]) {
        case 'String': {
          if (typeof v !== 'string') {
            misfit = c;
            break;
          }
          // UTF-8 is at most 3 bytes per UTF-16 unit; a length under 128 is one varint byte.
          room(v.length * 3 + 5);
          const n = buf.write(v, at + 1, 'utf8');
          if (n < 128) {
            buf[at] = n;
            at += 1 + n;
          } else {
            const prefix = varintLength(n);
            buf.copyWithin(at + prefix, at + 1, at + 1 + n);
            writeVarint(buf, at, n);
            at += prefix + n;
          }
          break;
        }
        case 'UInt32':
          if (!(Number.isInteger(v) && (v as number) >= 0 && (v as number) <= 4_294_967_295)) {
            misfit = c;
            break;
          }
          room(4);
          buf.writeUInt32LE(v as number, at);
          at += 4;
          break;
        case 'Int64':
        case "DateTime64(3, 'UTC')": {
          if (!(Number.isSafeInteger(v) && (c !== TS_COLUMN || ((v as number) >= 0 && (v as number) <= TS_MAX_MS)))) {
            misfit = c;
            break;
          }
          room(8);
          // Exact for any safe integer (money in nano-units, milliseconds): low and high 32-bit halves.
          const x = v as number;
          const hi = Math.floor(x / 4_294_967_296);
          buf.writeUInt32LE(x - hi * 4_294_967_296, at);
          buf.writeInt32LE(hi, at + 4);
          at += 8;
          break;
        }
        case 'UInt8':
          room(1);
          buf[at++] = v as number;
          break;
        case undefined: // past the end: the loop stops before
          break;
      }
    }
    if (misfit >= 0) {
      at = rowStart;
      const reason = misfitReason(misfit, facts[misfit]);
      if (!reject) throw new Error(reason);
      reject({ at: r, reason });
    }
  }
  return buf.subarray(0, at);
}

const NOT_AN_EVENT = 'not an event (an object)';
const TS_COLUMN = EVENT_COLUMNS.indexOf('ts');
/** ts bounds: the hourly tables' `hour` is a DateTime (seconds since 1970 in 32 bits); later or earlier wraps there. */
const TS_MAX_MS = 4_294_967_295_000;

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
        fits = Number.isInteger(v) && (v as number) >= 0 && (v as number) <= 4_294_967_295;
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

const misfitReason = (column: number, v: unknown) => `${EVENT_COLUMNS[column]}: ${describe(v)} does not fit ${ROW_BINARY_TYPES[column]}`;

const isRecord = (v: unknown): boolean => typeof v === 'object' && v !== null && !Array.isArray(v);

function describe(v: unknown): string {
  if (typeof v === 'string') return `string ${JSON.stringify(v.slice(0, 40))}`;
  if (typeof v === 'number' || typeof v === 'bigint' || typeof v === 'boolean') return `${typeof v} ${String(v)}`;
  return v === null ? 'null' : Array.isArray(v) ? 'an array' : typeof v;
}

function varintLength(n: number): number {
  let len = 1;
  while (n >= 128) {
    n = Math.floor(n / 128);
    len++;
  }
  return len;
}

function writeVarint(buf: Buffer, at: number, n: number): void {
  while (n >= 128) {
    buf[at++] = (n & 127) | 128;
    n = Math.floor(n / 128);
  }
  buf[at] = n;
}

/** The same row with its column names (JSONEachRow). */
export function toRow(event: EngineEvent): EventRow {
  const values = toRowValues(event);
  return Object.fromEntries(EVENT_COLUMNS.map((c, i) => [c, values[i]])) as unknown as EventRow;
}
