import type { NoBidReason } from '@adnet/schemas/events';
import { randomUUID } from 'node:crypto';
import type { Candidate } from '../index/candidate.ts';
import { candidateListsFor } from '../index/engine-index.ts';
import { encodeTicket } from '../tracking/signed-token.ts';
import { CANDIDATE_FILTERS, IMP_FILTERS } from './filters/index.ts';
import type { BudgetGate, CreativePicker } from './ports.ts';
import type { ImpContext, RequestContext } from './request-context.ts';
import { runImpAuction } from './run-auction.ts';

export interface ServeDeps {
  budget: BudgetGate;
  /** Chooses among a winning campaign's creatives. */
  creatives: CreativePicker;
  /** Signs tickets. */
  secret: string;
  engineId: string;
}

/** A won impression: the budget is taken and the ticket signed. */
export interface Served {
  won: true;
  candidate: Candidate;
  priceMicroCents: number;
  bidId: string;
  /** Signed: names the bid in win notices, pixels and click links. */
  ticket: string;
}
export type ServeOutcome = Served | { won: false; reason: NoBidReason };

/**
 * One impression, for every door (OpenRTB, /imp, /vast, push): the request's
 * verdict, the imp filters, then the ranked walk over the impression's slots
 * for the request's country; the winner gets a bid id and a signed ticket.
 */
export function serve(deps: ServeDeps, req: RequestContext, imp: ImpContext): ServeOutcome {
  if (req.rejected) return { won: false, reason: req.rejected };
  for (const f of IMP_FILTERS) if (f.reject(imp, req)) return { won: false, reason: f.name };
  const lists: (readonly Candidate[])[] = [];
  for (const slot of imp.slots) candidateListsFor(req.index, slot, req.country, lists);
  const outcome = runImpAuction(lists, imp, CANDIDATE_FILTERS, deps.budget, deps.creatives);
  if (!outcome.won) return outcome;
  const c = outcome.winner;
  const bidId = randomUUID();
  // A capped campaign's ad names its user, so whichever engine counts it adds it to that user's count.
  const user = c.cap !== null && imp.viewer ? imp.viewer.key : '';
  if (user) imp.viewer?.served(c);
  const ticket = encodeTicket(deps.secret, {
    bidId,
    campaignId: c.campaignId,
    advertiserId: c.advertiserId,
    creativeId: c.creativeId,
    priceMicroCents: outcome.priceMicroCents,
    issuedAt: Math.floor(req.ts / 1000),
    engine: deps.engineId,
    partnerId: req.partnerId,
    country: req.country ?? '',
    device: req.device ?? '',
    // Written out rather than spread: a literal of known fields is created from one boilerplate.
    publisherId: imp.inventory.publisherId,
    siteId: imp.inventory.siteId,
    zoneId: imp.inventory.zoneId,
    surface: req.surface,
    ipPrefix: req.ipPrefix,
    uaHash: req.uaHash,
    test: req.test,
    os: req.os ?? '',
    browser: req.browser ?? '',
    user,
    source: imp.inventory.source,
  });
  return { won: true, candidate: c, priceMicroCents: outcome.priceMicroCents, bidId, ticket };
}

// The tracking links of a served ad, each built only where it is used (every one carries the ticket).

export const clickLink = (baseUrl: string, s: Served): string => `${baseUrl}/c/${s.ticket}/${s.candidate.creative.tracking_token}`;
export const impressionLink = (baseUrl: string, s: Served): string => `${baseUrl}/openrtb/imptracker/${s.ticket}`;
export const winLink = (baseUrl: string, s: Served): string => `${baseUrl}/openrtb/win/${s.ticket}?price=\${AUCTION_PRICE}`;
export const billingLink = (baseUrl: string, s: Served): string => `${baseUrl}/openrtb/bill/${s.ticket}?price=\${AUCTION_PRICE}`;
export const beaconLink = (baseUrl: string, s: Served): string => `${baseUrl}/b/${s.ticket}`;

/** A player's playback-event links (`/t/vast/<event>/<ticket>`), for our own VAST zones. */
export const playbackLink = (baseUrl: string, s: Served) => (event: string) => `${baseUrl}/t/vast/${event}/${s.ticket}`;
