import type { BidTicket } from '../tracking/signed-token.ts';

/**
 * How long after the bid each use of a ticket is honoured, in seconds. Past it the use is recorded and
 * never charged, so a URL farmed today cannot be cashed in later. Every once-only mark lives longer
 * than the longest of these (store/counters.ts), so each use is charged at most once, ever.
 */
export const TICKET_MAX_AGE_S = {
  /** The widget fires its render beacon as soon as the ad is on the page (and the viewable one a second after it is in view). */
  beacon: 10 * 60,
  /** Partners send win notices within seconds of the auction. */
  win: 15 * 60,
  /** Billing notices come when the ad is rendered, which may be a while after the auction (prefetch). */
  bill: 60 * 60,
  /** A player may fetch VAST ahead and start the ad a little later. */
  pixel: 60 * 60,
  /** Clicks are judged by the fraud rules (`expired`, a day). */
  click: 24 * 3600,
  /** An ad's "About this ad" page (routes/about-ad.ts) answers while a page showing the ad may still be open. */
  about: 7 * 24 * 3600,
} as const;

export const ticketExpired = (t: BidTicket, use: keyof typeof TICKET_MAX_AGE_S, nowMs: number): boolean =>
  nowMs / 1000 - t.issuedAt > TICKET_MAX_AGE_S[use];

/**
 * How long a bid's price stays held in its engine's budget slice waiting for the ad to be counted
 * (budget/budget-slices.ts); after it the hold goes back to the pool as a lost bid's.
 */
export const BID_HOLD_MS = 60_000;

/**
 * Whether the bid's hold may have gone back already: then what the ad costs must be charged straight
 * against the pools. Ten seconds early, because tickets keep whole seconds and engines' clocks differ;
 * a charge taken while the hold is still there only holds more until the hold lapses.
 */
export const holdMayHaveLapsed = (t: BidTicket, nowMs: number): boolean =>
  nowMs - t.issuedAt * 1000 >= BID_HOLD_MS - 10_000;
