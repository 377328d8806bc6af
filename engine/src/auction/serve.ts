import type { NoBidReason } from '@adnet/schemas/events';
import { randomUuid } from '../events/random-uuid.ts';
import type { Candidate } from '../index/candidate.ts';
import { candidateListsFor } from '../index/engine-index.ts';
import { encodeTicket } from '../tracking/signed-token.ts';
import { CANDIDATE_FILTERS, IMP_FILTERS } from './filters/index.ts';
import type { CandidateFilter } from './filter.ts';
import type { BudgetGate, CreativePicker } from './ports.ts';
import type { ImpContext, RequestContext } from './request-context.ts';
import { runImpAuction } from './run-auction.ts';
import type { ImpOutcome } from './run-auction.ts';
import { adjustedMicroCents } from '@adnet/schemas/source-lists';

export interface ServeDeps {
  budget: BudgetGate;
  /** Chooses among a winning campaign's creatives. */
  creatives: CreativePicker;
  /** Signs tickets. */
  secret: string;
  engineId: string;
  /** The candidate filters, when not CANDIDATE_FILTERS: the live preview leaves pacing's random draw out (routes/preview.ts). */
  candidateFilters?: readonly CandidateFilter[];
}

/** A won impression: the budget is taken and the ticket signed. */
export interface Served {
  won: true;
  candidate: Candidate;
  priceMicroCents: number;
  bidId: string;
  /** Signed: names the bid in win notices, pixels and click links. */
  ticket: string;
  /** The deal the bid is made on (OpenRTB `dealid`), when it is. */
  dealId: string | undefined;
}
export type ServeOutcome = Served | { won: false; reason: NoBidReason };

/**
 * One impression, for every door (OpenRTB, /imp, /vast, push): the request's
 * verdict, the imp filters, then the ranked walk over the impression's slots
 * for the request's country; the winner gets a bid id and a signed ticket.
 */
export function serve(deps: ServeDeps, req: RequestContext, imp: ImpContext): ServeOutcome {
  if (req.rejected) return { won: false, reason: req.rejected };
  // Indexed loops: a for-of's iterator showed in the bid path's allocation profile.
  for (let i = 0; i < IMP_FILTERS.length; i++) {
    const f = IMP_FILTERS[i] as (typeof IMP_FILTERS)[number];
    if (f.reject(imp, req)) return { won: false, reason: f.name };
  }
  const lists: (readonly Candidate[])[] = [];
  // Naming no zone or site of ours, only country bid adjustments can apply: the lists ranked for that.
  const exchange = imp.zone === undefined && imp.inventory.siteId === 0;
  for (let i = 0; i < imp.slots.length; i++)
    candidateListsFor(req.index, imp.slots[i] as (typeof imp.slots)[number], req.country, lists, exchange);
  let dealId: string | undefined;
  let outcome: ImpOutcome | undefined;
  if (imp.deals.length > 0) {
    const deal = dealAuction(deps, req, imp, exchange);
    if (deal.won) dealId = deal.dealId;
    if (deal.won || imp.privateAuction) outcome = deal.outcome;
  }
  outcome ??= runImpAuction(
    lists,
    imp,
    deps.candidateFilters ?? CANDIDATE_FILTERS,
    deps.budget,
    deps.creatives,
    exchange,
  );
  if (!outcome.won) return outcome;
  const c = outcome.winner;
  const bidId = randomUuid();
  // A capped campaign's ad names its user, so whichever engine counts it adds it to that user's count; so does
  // the ad of a campaign an audience watches, so whichever engine counts its impression or click adds the member.
  const user = imp.viewer && (c.cap !== null || req.index.audiences.watched.has(c.campaignId)) ? imp.viewer.key : '';
  if (user && c.cap !== null) imp.viewer?.served(c);
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
    // The click's price is signed into the ticket: an adjusted CPC bid cannot be re-priced by whoever holds the link.
    clickMicroCents:
      c.bidType === 'cpc' && outcome.multiplierMilli !== 1000
        ? adjustedMicroCents(c.bidMicroCents, outcome.multiplierMilli)
        : 0,
    // The format as served: a zone's (a banner campaign's creative in an interstitial zone is an interstitial),
    // the campaign's on an exchange's impression.
    format: imp.zone ? imp.zone.zone.format : c.format,
    integration: req.integration,
  });
  return { won: true, candidate: c, priceMicroCents: outcome.priceMicroCents, bidId, ticket, dealId };
}

/**
 * The deals of an impression, best floor first: each one an auction among the deal's campaigns alone, at
 * the deal's floor; the first deal with a winner makes the bid (its budget is taken once). A deal outranks
 * the open auction: the seller set it up for these buyers. The outcome of the last deal tried says why
 * none won.
 */
function dealAuction(
  deps: ServeDeps,
  req: RequestContext,
  imp: ImpContext,
  exchange: boolean,
): { won: boolean; dealId: string; outcome: ImpOutcome } {
  let last: { won: boolean; dealId: string; outcome: ImpOutcome } | undefined;
  for (const deal of imp.deals) {
    // The deal's own ranked lists (index/engine-index.ts): the walk sees its campaigns alone.
    const lists: (readonly Candidate[])[] = [];
    for (const slot of imp.slots) candidateListsFor(deal.entry, slot, req.country, lists, exchange);
    const outcome = runImpAuction(
      lists,
      { ...imp, floorMicroCents: deal.floorMicroCents },
      deps.candidateFilters ?? CANDIDATE_FILTERS,
      deps.budget,
      deps.creatives,
      exchange,
    );
    last = { won: outcome.won, dealId: deal.id, outcome };
    if (outcome.won) return last;
  }
  return last as { won: boolean; dealId: string; outcome: ImpOutcome };
}

// The tracking links of a served ad, each built only where it is used (every one carries the ticket).

export const clickLink = (baseUrl: string, s: Served): string =>
  `${baseUrl}/c/${s.ticket}/${s.candidate.creative.tracking_token}`;
export const impressionLink = (baseUrl: string, s: Served): string => `${baseUrl}/openrtb/imptracker/${s.ticket}`;
export const winLink = (baseUrl: string, s: Served): string =>
  `${baseUrl}/openrtb/win/${s.ticket}?price=\${AUCTION_PRICE}`;
export const billingLink = (baseUrl: string, s: Served): string =>
  `${baseUrl}/openrtb/bill/${s.ticket}?price=\${AUCTION_PRICE}`;
export const beaconLink = (baseUrl: string, s: Served): string => `${baseUrl}/b/${s.ticket}`;

/** A player's playback-event links (`/t/vast/<event>/<ticket>`), for our own VAST zones. */
export const playbackLink = (baseUrl: string, s: Served) => (event: string) => `${baseUrl}/t/vast/${event}/${s.ticket}`;
