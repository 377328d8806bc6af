import { PRICE_INCREMENT_MICRO_CENTS, clearingPrice } from '../auction/price.ts';
import type { PartnerBid } from './read-response.ts';

/** Our own campaigns' best bid for the impression, as the ranked walk found it. */
export interface OwnBid {
  /** The winner's eCPM: the most it may pay. */
  ecpmMicroCents: number;
  /** What it clears at among our campaigns alone (already held from its budget). */
  priceMicroCents: number;
}

export type Decision =
  | { winner: 'own'; priceMicroCents: number }
  | { winner: 'partner'; bid: PartnerBid; priceMicroCents: number; losers: PartnerBid[] }
  | { winner: 'none' };

/**
 * One auction between our campaigns' best bid and the partners' valid bids (every one already at or
 * over the floor). Second price plus one cent, as our own auction: the winner pays one cent over the
 * runner-up, never under the floor, never over its own bid. Ties go to our campaign (it was ranked
 * first and its budget is already held). Partners' bids are ordered by price, then by arrival.
 */
export function decide(own: OwnBid | undefined, bids: readonly PartnerBid[], floorMicroCents: number): Decision {
  let best: PartnerBid | undefined;
  let second = 0;
  for (const b of bids) {
    if (!best || b.priceMicroCents > best.priceMicroCents) {
      if (best) second = Math.max(second, best.priceMicroCents);
      best = b;
    } else second = Math.max(second, b.priceMicroCents);
  }
  if (!best) return own ? { winner: 'own', priceMicroCents: own.priceMicroCents } : { winner: 'none' };
  if (own && own.ecpmMicroCents >= best.priceMicroCents) {
    // Our campaign keeps its own price unless the partner's bid pushes it higher.
    const price = Math.max(
      own.priceMicroCents,
      Math.min(own.ecpmMicroCents, best.priceMicroCents + PRICE_INCREMENT_MICRO_CENTS),
    );
    return { winner: 'own', priceMicroCents: price };
  }
  const runnerUp = Math.max(second, own?.ecpmMicroCents ?? 0);
  const winner = best;
  return {
    winner: 'partner',
    bid: winner,
    priceMicroCents: clearingPrice(winner.priceMicroCents, runnerUp, floorMicroCents),
    losers: bids.filter((b) => b !== winner),
  };
}
