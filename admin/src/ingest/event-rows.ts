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

export function toRow(event: EngineEvent): EventRow {
  // Seen flat: every type's fields, each absent one a zero or an empty string in the row.
  const e: EventFields = event;
  return {
    id: event.id,
    type: event.type,
    // DateTime64(3) text in UTC: 'YYYY-MM-DD hh:mm:ss.sss'.
    ts: new Date(event.ts).toISOString().replace('T', ' ').slice(0, 23),
    engine: event.engine,
    auction_id: e.auction_id ?? '',
    bid_id: e.bid_id ?? '',
    partner_id: e.partner_id ?? 0,
    campaign_id: e.campaign_id ?? 0,
    creative_id: e.creative_id ?? 0,
    advertiser_id: e.advertiser_id ?? 0,
    publisher_id: e.publisher_id ?? 0,
    site_id: e.site_id ?? 0,
    zone_id: e.zone_id ?? 0,
    price_micro_cents: e.price_micro_cents ?? 0,
    charge_nano: e.charge_nano ?? 0,
    reason: e.reason ?? '',
    // Engines write only ISO codes; a stream entry from anywhere else must not put its text in the statistics.
    country: e.country && COUNTRY_CODES.has(e.country) ? e.country : '',
    device: e.device ?? '',
    os: e.os ?? '',
    browser: e.browser ?? '',
    site_domain: e.site_domain ?? '',
    invalid: e.invalid ? 1 : 0,
    // Engines bound it (engine/src/inventory/source.ts); an entry from anywhere else is cut to the same length.
    source: (e.source ?? '').slice(0, 64),
    demand_partner_id: e.demand_partner_id ?? 0,
  };
}
