import type { EngineEvent } from '@adnet/schemas/events';
import type { Bid, BidRequest, Imp } from '@adnet/schemas/openrtb';
import type { BidBudget, EventSink } from '../auction/ports.ts';
import { openRtbImp } from '../auction/request-context.ts';
import type { RequestContext } from '../auction/request-context.ts';
import { serve } from '../auction/serve.ts';
import type { Served, ServeDeps } from '../auction/serve.ts';
import { bidEvent, noBidEvent, testBidEvent } from '../events/bid-events.ts';
import { makeEvent, requestFacts } from '../events/make-event.ts';
import { toBid } from './bid-response.ts';

export interface ExchangePorts extends ServeDeps {
  budget: BidBudget;
  emit: EventSink;
  baseUrl: string;
  /** Parsing plus auctions of one bid request, in seconds. */
  observeAuction?: (seconds: number) => void;
}

/**
 * One auction per impression of an exchange partner's bid request, and the bids to answer with; undefined
 * for none. A request answered past its `deadline` (milliseconds of `clock` from `started`) is too late
 * to be useful to the partner: its budget goes back and it is a `deadline` no-bid.
 */
// eslint-disable-next-line @typescript-eslint/max-params -- hot path: answers every OpenRTB /bid request
export function exchangeBids(
  p: ExchangePorts,
  request: BidRequest,
  rc: RequestContext,
  billsByBurl: boolean,
  clock: () => number,
  started: number,
  deadline: number,
): Bid[] | undefined {
  const facts = requestFacts(rc, p.engineId);
  const answering = { baseUrl: p.baseUrl, billsByBurl };
  // Made at the first bid, as one-element literals: an empty array's first push grows it to 17 slots, and
  // most requests carry one impression (bench/results/ab-history.md, step 12).
  let bids: Bid[] | undefined;
  let taken: Served[] | undefined;
  // Bid events wait for the deadline check: a bid that is never sent must not be recorded as one.
  let bidEvents: EngineEvent[] | undefined;
  // Indexed loops: a for-of's iterator showed in this handler's allocation profile.
  for (let i = 0; i < request.imp.length; i++) {
    const imp = request.imp[i] as Imp;
    const ic = openRtbImp(rc, imp);
    const out = serve(p, rc, ic);
    if (!out.won) {
      p.emit(noBidEvent(facts, out.reason, imp.id));
      continue;
    }
    const c = out.candidate;
    const bid = toBid(imp, out, ic, answering);
    // A test request is answered as usual and kept apart from the statistics.
    const event = rc.test
      ? testBidEvent(facts, ic.inventory, out.bidId, c, rc.partnerId)
      : bidEvent(facts, ic.inventory, out.bidId, c, imp.id, out.priceMicroCents, request.id);
    if (bids === undefined || taken === undefined || bidEvents === undefined) {
      bids = [bid];
      taken = [out];
      bidEvents = [event];
    } else {
      bids.push(bid);
      taken.push(out);
      bidEvents.push(event);
    }
  }

  const elapsed = clock() - started;
  p.observeAuction?.(elapsed / 1000);
  if (elapsed > deadline) {
    if (taken) for (const t of taken) p.budget.giveBack(t.candidate, t.priceMicroCents);
    p.emit(makeEvent('nobid', { reason: 'deadline', ...facts }));
    return undefined;
  }
  if (bids === undefined || bidEvents === undefined) return undefined;
  for (let i = 0; i < bidEvents.length; i++) p.emit(bidEvents[i] as EngineEvent);
  return bids;
}
