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
export type EventRowValues = ValuesOf<typeof EVENT_COLUMNS>;
type ValuesOf<T extends readonly (keyof EventRow)[]> = { -readonly [K in keyof T]: EventRow[T[K] & keyof EventRow] };

export function toRowValues(event: EngineEvent): EventRowValues {
  // Seen flat: every type's fields, each absent one a zero or an empty string in the row.
  const e: EventFields = event;
  return [
    event.id,
    event.type,
    // DateTime64(3) text in UTC: 'YYYY-MM-DD hh:mm:ss.sss'.
    new Date(event.ts).toISOString().replace('T', ' ').slice(0, 23),
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

/** The same row with its column names (JSONEachRow). */
export function toRow(event: EngineEvent): EventRow {
  const values = toRowValues(event);
  return Object.fromEntries(EVENT_COLUMNS.map((c, i) => [c, values[i]])) as unknown as EventRow;
}
