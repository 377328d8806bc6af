/** What the OpenRTB 2.5 substitution macros (§4.4) stand for in one partner's bid. */
export interface AuctionMacros {
  price: string;
  auctionId: string;
  impId: string;
  bidId: string;
  seatId: string;
  currency: string;
  /** OpenRTB 2.5 loss reason code (list 5.25); '' for the winner. */
  loss: string;
}

const MACRO = /\$\{AUCTION_(PRICE|ID|IMP_ID|BID_ID|SEAT_ID|CURRENCY|LOSS)\}/g;

/**
 * Fills the macros in a notice URL or in markup. Every value is URL-encoded: the ids come from the
 * partner and must not break out of the URL or the markup they land in.
 */
export function substituteMacros(template: string, m: AuctionMacros): string {
  return template.replace(MACRO, (_all, name: string) => {
    switch (name) {
      case 'PRICE':
        return encodeURIComponent(m.price);
      case 'ID':
        return encodeURIComponent(m.auctionId);
      case 'IMP_ID':
        return encodeURIComponent(m.impId);
      case 'BID_ID':
        return encodeURIComponent(m.bidId);
      case 'SEAT_ID':
        return encodeURIComponent(m.seatId);
      case 'CURRENCY':
        return encodeURIComponent(m.currency);
      default:
        return encodeURIComponent(m.loss);
    }
  });
}

/** CPM micro-cents as the decimal USD a partner reads in `${AUCTION_PRICE}` (at most five places, no float noise). */
export function priceMacro(microCents: number): string {
  const whole = Math.floor(microCents / 100_000);
  const frac = String(microCents % 100_000)
    .padStart(5, '0')
    .replace(/0+$/, '');
  return frac ? `${whole}.${frac}` : String(whole);
}

/** OpenRTB 2.5 loss reason codes (list 5.25) we send. */
export const LOSS = {
  won: '0',
  invalidResponse: '3',
  missingMarkup: '7',
  belowFloor: '100',
  lostToHigherBid: '102',
} as const;
