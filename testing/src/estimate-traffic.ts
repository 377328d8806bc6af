import type { EngineEvent } from '@adnet/schemas/events';

// A week of recorded traffic as engines write it, for the traffic estimate's tests: per hour, requests on
// our zones (sold at a spread of prices, unsold, or refused as bots) and exchange requests we bid on.

export interface TrafficZone {
  id: number;
  siteId: number;
}

export interface WeekOptions {
  zones: readonly TrafficZone[];
  /** Requests per hour, zone and exchange together. */
  perHour: number;
  /** The last hour recorded ends here (ms). */
  now: number;
  hours?: number;
  seed?: number;
}

/** A small deterministic generator (xorshift32): the same week every run. */
export function seeded(seed: number): () => number {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 4_294_967_296;
  };
}

const pick = <T>(rnd: () => number, from: readonly T[]): T => from[Math.floor(rnd() * from.length)] as T;

/** A winning CPM in micro-cents: log-normal around 1 USD (from about 0.30 to 3.30 USD for 19 in 20). */
function price(rnd: () => number): number {
  const gauss = Math.sqrt(-2 * Math.log(1 - rnd())) * Math.cos(2 * Math.PI * rnd());
  return Math.max(1_000, Math.round(100_000 * Math.exp(0.6 * gauss)));
}

/**
 * The events of `hours` hours before `now`: each request a zone's impression of ours (70 %, at its clearing
 * price), a zone's no-bid (20 %), a bot refused (5 %), or an exchange request we bid on (5 %, zone 0).
 */
export function weekOfTraffic(o: WeekOptions): EngineEvent[] {
  const rnd = seeded(o.seed ?? 38);
  const events: EngineEvent[] = [];
  let n = 0;
  for (let h = 0; h < (o.hours ?? 167); h++) {
    for (let i = 0; i < o.perHour; i++) {
      const ts = o.now - h * 3_600_000 - Math.floor(rnd() * 3_599_000) - 1_000;
      const zone = pick(rnd, o.zones);
      const audience = {
        country: pick(rnd, ['us', 'us', 'de', 'fr']),
        device: pick(rnd, ['mobile', 'mobile', 'desktop', 'tablet']),
        os: pick(rnd, ['android', 'ios', 'windows']),
        browser: pick(rnd, ['chrome', 'safari', 'firefox']),
      };
      const where = { publisher_id: 1, site_id: zone.siteId, zone_id: zone.id, source: `site-${zone.siteId}.example` };
      const id = `est-${o.seed ?? 38}-${++n}`;
      const kind = rnd();
      if (kind < 0.7) {
        const p = price(rnd);
        events.push({
          id,
          type: 'impression',
          ts,
          engine: 'e1',
          ...audience,
          ...where,
          campaign_id: 1,
          creative_id: 1,
          advertiser_id: 1,
          bid_id: id,
          price_micro_cents: p,
          charge_nano: p * 10,
        });
      } else if (kind < 0.95) {
        const reason = kind < 0.9 ? 'no_candidates' : 'bot_traffic';
        events.push({ id, type: 'nobid', ts, engine: 'e1', ...audience, ...where, reason });
      } else {
        events.push({
          id,
          type: 'bid',
          ts,
          engine: 'e1',
          ...audience,
          source: 'exchange.example',
          campaign_id: 1,
          creative_id: 1,
          advertiser_id: 1,
          auction_id: id,
          imp_id: '1',
          bid_id: id,
          partner_id: 1,
          price_micro_cents: price(rnd),
        });
      }
    }
  }
  return events;
}

/** What a request of the week is, for a test's own count: its audience, zone and winning price (none: unsold). */
export interface RecordedRequest {
  ts: number;
  country: string;
  device: string;
  os: string;
  browser: string;
  zoneId: number;
  siteId: number;
  priceMicroCents: number | undefined;
}

/** The requests a campaign could have bid on (bots left out), as the estimate counts them. */
export function requestsOf(events: readonly EngineEvent[]): RecordedRequest[] {
  return events.flatMap((e) => {
    if (e.type !== 'impression' && e.type !== 'bid' && !(e.type === 'nobid' && e.reason === 'no_candidates')) return [];
    return [
      {
        ts: e.ts,
        country: e.country ?? '',
        device: e.device ?? '',
        os: e.os ?? '',
        browser: e.browser ?? '',
        zoneId: e.zone_id ?? 0,
        siteId: e.site_id ?? 0,
        priceMicroCents: e.type === 'nobid' ? undefined : e.price_micro_cents,
      },
    ];
  });
}
