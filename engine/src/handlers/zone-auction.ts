import type { StoredZone } from '@adnet/schemas/publisher';
import { randomUUID } from 'node:crypto';
import { FILTERS } from '../auction/filters.ts';
import { runImpAuction } from '../auction/run-auction.ts';
import type { BidBudget } from '../budget/budget-slices.ts';
import type { Candidate } from '../index/candidate.ts';
import { candidateListsFor, slotFor } from '../index/engine-index.ts';
import type { EngineIndex } from '../index/engine-index.ts';
import { encodeTicket } from '../tracking/signed-token.ts';

/** Where a browser request comes from, as far as the engine can tell without a GeoIP database. */
export interface Visitor {
  country: string | undefined;
  language: string | undefined;
  device: 'desktop' | 'mobile' | 'tablet';
}

const TABLET = /iPad|Tablet|Nexus (7|9|10)|SM-T\d|Kindle|Silk/i;
const MOBILE = /Mobi|Android|iPhone|iPod|Windows Phone/i;

/**
 * Country from the load balancer's or CDN's header (`X-Country` or `CF-IPCountry`,
 * ISO alpha-2); language from Accept-Language; device type from the user agent.
 */
export function visitorOf(headers: Record<string, string>): Visitor {
  const cc = (headers['x-country'] || headers['cf-ipcountry'] || '').trim().toLowerCase();
  const lang = (headers['accept-language'] ?? '').trim().slice(0, 2).toLowerCase();
  const ua = headers['user-agent'] ?? '';
  return {
    country: /^[a-z]{2}$/.test(cc) ? cc : undefined,
    language: /^[a-z]{2}$/.test(lang) ? lang : undefined,
    device: TABLET.test(ua) ? 'tablet' : MOBILE.test(ua) ? 'mobile' : 'desktop',
  };
}

export const VISITOR_HEADERS = ['x-country', 'cf-ipcountry', 'accept-language', 'user-agent'] as const;

export interface ZoneWin {
  candidate: Candidate;
  priceMicroCents: number;
  bidId: string;
  /** Signed: the impression id in click links and the VAST pixel. */
  ticket: string;
}

/** One auction for one of our own zones: no floor, the same filters and budgets as OpenRTB. */
export function zoneAuction(index: EngineIndex, zone: StoredZone, v: Visitor, budget: BidBudget, secret: string, engineId: string): ZoneWin | { reason: string } {
  const lists: (readonly Candidate[])[] = [];
  candidateListsFor(index, slotFor(zone.format, zone.banner_width, zone.banner_height), v.country, lists);
  const outcome = runImpAuction(lists, { language: v.language, device: v.device, bcat: undefined, badv: undefined, floorMicroCents: 0 }, FILTERS, budget);
  if (!outcome.won) return { reason: outcome.reason };
  const c = outcome.winner;
  const bidId = randomUUID();
  const ticket = encodeTicket(secret, {
    bidId, campaignId: c.campaignId, advertiserId: c.advertiserId, creativeId: c.creativeId, priceMicroCents: outcome.priceMicroCents,
    issuedAt: Math.floor(Date.now() / 1000), engine: engineId, partnerId: 0, country: v.country ?? '', device: v.device,
    publisherId: zone.publisher_id, siteId: zone.site_id, zoneId: zone.id,
  });
  return { candidate: c, priceMicroCents: outcome.priceMicroCents, bidId, ticket };
}
