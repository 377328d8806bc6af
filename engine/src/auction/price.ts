/** One cent, in micro-cents: the increment of the second-price rule. */
export const PRICE_INCREMENT_MICRO_CENTS = 1_000;

/**
 * Second price plus one cent (CPM): the winner pays one cent more than the
 * runner-up's eCPM, never less than the floor and never more than its own
 * eCPM. With no runner-up it pays the floor (or one cent when there is none).
 */
export function clearingPrice(winnerEcpm: number, secondEcpm: number, floor: number): number {
  return Math.min(winnerEcpm, Math.max(floor, secondEcpm + PRICE_INCREMENT_MICRO_CENTS));
}

/**
 * What a win notice charges, from the exchange's `${AUCTION_PRICE}` (CPM in USD), never above our
 * bid; a macro left unfilled (or no price) means our bid. Undefined when it is not a price.
 */
export function exchangePriceMicroCents(raw: string | null, ourBidMicroCents: number): number | undefined {
  if (raw === null || raw === '' || raw.includes('AUCTION_PRICE')) return ourBidMicroCents;
  if (!/^\d+(\.\d+)?$/.test(raw)) return undefined;
  return Math.min(Math.round(Number(raw) * 100_000), ourBidMicroCents);
}
