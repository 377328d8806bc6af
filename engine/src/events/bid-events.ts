import type { EventOf, NoBidReason } from '@adnet/schemas/events';
import { randomUuid } from './random-uuid.ts';
import type { Inventory, requestFacts } from './make-event.ts';

// The OpenRTB route's events, each written as one object literal: built with spreads (the request's facts,
// then again in makeEvent) every bid cost two copies through the runtime's slow path
// (bench/results/ab-history.md, step 10). The fields are those the spreads gave, later ones winning.

type Facts = ReturnType<typeof requestFacts>;

/** Whose ad won an impression (the auction's candidate). */
export interface AdOf {
  campaignId: number;
  creativeId: number;
  advertiserId: number;
}

/** An impression without a bid of ours. */
export const noBidEvent = (f: Facts, reason: NoBidReason, impId: string): EventOf<'nobid'> => ({
  id: randomUuid(),
  type: 'nobid',
  imp_id: impId,
  reason,
  ts: f.ts,
  engine: f.engine,
  auction_id: f.auction_id,
  partner_id: f.partner_id,
  country: f.country,
  device: f.device,
  os: f.os,
  browser: f.browser,
  site_domain: f.site_domain,
  source: f.source,
});

/** Our bid on one impression (the request's facts name its source: they override the inventory's). */
// eslint-disable-next-line @typescript-eslint/max-params -- hot path: one event per bid
export function bidEvent(
  f: Facts,
  i: Inventory,
  bidId: string,
  b: AdOf,
  impId: string,
  priceMicroCents: number,
  auctionId: string,
): EventOf<'bid'> {
  const e: EventOf<'bid'> = {
    id: randomUuid(),
    type: 'bid',
    imp_id: impId,
    bid_id: bidId,
    campaign_id: b.campaignId,
    creative_id: b.creativeId,
    advertiser_id: b.advertiserId,
    price_micro_cents: priceMicroCents,
    ts: f.ts,
    engine: f.engine,
    auction_id: auctionId,
    partner_id: f.partner_id,
    country: f.country,
    device: f.device,
    os: f.os,
    browser: f.browser,
    site_domain: f.site_domain,
    source: f.source,
  };
  return i.zoneId || i.siteId ? withInventory(e, i) : e;
}

/** A test request's bid: answered as usual, kept apart from the statistics. */
// eslint-disable-next-line @typescript-eslint/max-params -- hot path: one event per test request's bid
export function testBidEvent(f: Facts, i: Inventory, bidId: string, b: AdOf, partnerId: number): EventOf<'uncounted'> {
  const e = {
    id: randomUuid(),
    type: 'uncounted' as const,
    bid_id: bidId,
    campaign_id: b.campaignId,
    creative_id: b.creativeId,
    advertiser_id: b.advertiserId,
    ts: f.ts,
    engine: f.engine,
    auction_id: f.auction_id,
    partner_id: partnerId,
    country: f.country,
    device: f.device,
    os: f.os,
    browser: f.browser,
    site_domain: f.site_domain,
    source: f.source,
    of: 'bid' as const,
    reason: 'test' as const,
  };
  return i.zoneId || i.siteId ? withInventory(e, i) : e;
}

/** The event with our publisher's ids added (a zone or site of ours; rare on the exchange's traffic). */
const withInventory = <E extends object>(
  e: E,
  i: Inventory,
): E & { publisher_id: number; site_id: number; zone_id: number } =>
  Object.assign(e, { publisher_id: i.publisherId, site_id: i.siteId, zone_id: i.zoneId });
