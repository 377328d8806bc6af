import type { DemandDiscard } from '@adnet/schemas/demand';
import { dspBidResponseSchema, dspBidSchema } from '@adnet/schemas/openrtb';
import type { DspBid } from '@adnet/schemas/openrtb';

/** A partner's bid that passed every check: its price in CPM micro-cents (schemas/src/money.ts). */
export interface PartnerBid {
  partnerId: number;
  seat: string;
  bid: DspBid;
  priceMicroCents: number;
}

export interface ReadResult {
  bids: PartnerBid[];
  /** Every discarded response or bid, by reason. */
  discards: DemandDiscard[];
}

/**
 * A partner's 200 answer to our one-imp request, checked against it: JSON, the request's `id`, USD,
 * each bid for our imp with a positive price at or over the floor and with markup. A bad response is
 * discarded whole; a bad bid alone.
 */
// eslint-disable-next-line @typescript-eslint/max-params -- hot path: reads every partner's answer to every bid request
export function readBidResponse(
  body: string,
  partnerId: number,
  requestId: string,
  impId: string,
  floorMicroCents: number,
): ReadResult {
  let raw: unknown;
  try {
    raw = JSON.parse(body);
  } catch {
    return { bids: [], discards: ['invalid_json'] };
  }
  const parsed = dspBidResponseSchema.safeParse(raw);
  if (!parsed.success) return { bids: [], discards: ['invalid_response'] };
  const res = parsed.data;
  if (res.id !== requestId) return { bids: [], discards: ['wrong_id'] };
  if (res.cur !== undefined && res.cur !== 'USD') return { bids: [], discards: ['wrong_currency'] };
  const bids: PartnerBid[] = [];
  const discards: DemandDiscard[] = [];
  for (const seat of res.seatbid ?? []) {
    for (const candidate of seat.bid) {
      const b = dspBidSchema.safeParse(candidate);
      if (!b.success) {
        discards.push(
          typeof (candidate as { price?: unknown } | null)?.price !== 'number' ? 'bad_price' : 'invalid_response',
        );
        continue;
      }
      const bid = b.data;
      if (bid.impid !== impId) discards.push('unknown_imp');
      else if (!Number.isFinite(bid.price) || bid.price <= 0) discards.push('bad_price');
      else if (!bid.adm || bid.adm.trim() === '') discards.push('no_markup');
      else {
        // CPM USD to micro-cents, rounded once so that 1.1 is 110 000, not 110 000.00000000001.
        const priceMicroCents = Math.round(bid.price * 100_000);
        if (priceMicroCents < floorMicroCents || priceMicroCents <= 0) discards.push('under_floor');
        else bids.push({ partnerId, seat: seat.seat ?? '', bid, priceMicroCents });
      }
    }
  }
  return { bids, discards };
}
