import type { BrowserFamily, OsFamily } from '@adnet/schemas/api';
import type { EventOf, EventType, Integration } from '@adnet/schemas/events';
import { randomUuid } from './random-uuid.ts';
import type { BidTicket } from '../tracking/signed-token.ts';

/** Where an impression lands in our inventory: zeros when it is none of ours. */
export interface Inventory {
  publisherId: number;
  siteId: number;
  zoneId: number;
  /** Where it ran, by name (inventory/source.ts): our zone's site, else what the partner's request says. */
  source: string;
}

/**
 * What a request's events say of it: the fields of the auction's request context (auction/request-types.ts)
 * they read. Events sit below the auction: they name its fields, never import it.
 */
export interface RequestFactsOf {
  ts: number;
  auctionId: string | undefined;
  partnerId: number;
  country: string | undefined;
  device: string | undefined;
  os: OsFamily | undefined;
  browser: BrowserFamily | undefined;
  siteDomain: string | undefined;
  source: string;
  integration: Integration;
}

/** A new event of `type` with a fresh id; the type's schema says which fields it must carry. */
export function makeEvent<T extends EventType>(type: T, fields: Omit<EventOf<T>, 'id' | 'type'>): EventOf<T> {
  return { id: randomUuid(), type, ...fields } as EventOf<T>;
}

/** Inventory fields, present only when the impression was on one of our sites. */
export const inventoryFacts = (
  i: Inventory,
): { publisher_id?: number; site_id?: number; zone_id?: number; source?: string } =>
  // Literals of one shape each (no spread): this runs for every served ad.
  i.zoneId || i.siteId
    ? { publisher_id: i.publisherId, site_id: i.siteId, zone_id: i.zoneId, source: i.source || undefined }
    : { source: i.source || undefined };

/** Who saw an ad, as the request context knows it: what no-bid events of our zones carry. */
export const audienceFacts = (req: RequestFactsOf) => ({
  country: req.country,
  device: req.device,
  os: req.os,
  browser: req.browser,
});

/** What a request tells its bid and no-bid events. */
export const requestFacts = (req: RequestFactsOf, engine: string) => ({
  ts: req.ts,
  engine,
  auction_id: req.auctionId,
  partner_id: req.partnerId,
  country: req.country,
  device: req.device,
  os: req.os,
  browser: req.browser,
  site_domain: req.siteDomain,
  source: req.source || undefined,
  integration: req.integration,
});

/** Who saw an ad, as a signed ticket carries it ('' when unknown). */
export const viewerFacts = (t: { country: string; device: string; os: string; browser: string }) => ({
  country: t.country || undefined,
  device: t.device || undefined,
  os: t.os || undefined,
  browser: t.browser || undefined,
});

/** What a signed ticket tells every later event of its bid (win, pixel, click, playback). */
export const ticketFacts = (t: BidTicket) => ({
  bid_id: t.bidId,
  campaign_id: t.campaignId,
  creative_id: t.creativeId,
  advertiser_id: t.advertiserId,
  integration: t.integration,
  format: t.format || undefined,
  ...viewerFacts(t),
  ...inventoryFacts(t),
});
