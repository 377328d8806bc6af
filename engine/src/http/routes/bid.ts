import { gunzipSync } from 'node:zlib';
import { SourceNames } from '../../inventory/source.ts';
import type { EngineEvent } from '@adnet/schemas/events';
import type { Bid, Imp } from '@adnet/schemas/openrtb';
import { openRtbContext, openRtbImp, openRtbUserId } from '../../auction/request-context.ts';
import { serve } from '../../auction/serve.ts';
import type { Served } from '../../auction/serve.ts';
import type { EngineContext } from '../../context.ts';
import { bidEvent, noBidEvent, testBidEvent } from '../../events/bid-events.ts';
import { makeEvent, requestFacts } from '../../events/make-event.ts';
import { partnerFor } from '../../index/engine-index.ts';
import { bidResponse, toBid } from '../../openrtb/bid-response.ts';
import { parseBidRequest } from '../../openrtb/parse-request.ts';
import { privacyBar } from '../../openrtb/privacy.ts';
import { errorReply, json } from '../adapt.ts';
import type { EngineReply, EngineRequest } from '../adapt.ts';

// Every answer says which OpenRTB version it speaks, as the specification asks of both sides.
const VERSION_HEADER = { 'x-openrtb-version': '2.5' };
const NO_BID: EngineReply = { status: 204, headers: VERSION_HEADER };

/** The body as sent, or inflated when the partner gzipped it: never past `max` bytes either way (a small bomb is refused, not inflated). */
function bodyOf(req: EngineRequest, max: number): Buffer | string {
  const encoding = (req.headers['content-encoding'] ?? '').trim().toLowerCase();
  if (encoding === '' || encoding === 'identity') return req.body;
  if (encoding !== 'gzip') return 'content-encoding must be gzip or absent';
  try {
    return gunzipSync(req.body, { maxOutputLength: max });
  } catch {
    return `gzip body is corrupt or inflates past ${max} bytes`;
  }
}
const VERSION = /^2\.5(\.\d+)?$/;

/** POST /openrtb/bid: partner check, rate limit, one auction per imp, deadline. */
export function bidRoute(ctx: EngineContext) {
  const now = ctx.now ?? (() => performance.now());
  // The requests' sources (site.domain, app.bundle), named once and bounded per hour (inventory/source.ts).
  const sources = new SourceNames();
  return (req: EngineRequest): EngineReply => {
    const started = now();
    const index = ctx.index();
    if (!index) return errorReply('unavailable', 'Engine is loading its index', { 'retry-after': '1' });
    const entry = partnerFor(index, req.ip);
    if (!entry) return errorReply('forbidden', `Address ${req.ip} is not on any partner's allow-list`);
    const partner = entry.partner;
    if (!ctx.limiter.take(partner.id, partner.qps_limit)) return errorReply('rate_limited', 'Partner QPS limit exceeded', { 'retry-after': '1' });
    if (!VERSION.test((req.headers['x-openrtb-version'] ?? '').trim())) return errorReply('bad_request', 'Send header x-openrtb-version: 2.5');
    const body = bodyOf(req, ctx.maxBidBodyBytes);
    if (typeof body === 'string') return errorReply('bad_request', body, VERSION_HEADER);
    const parsed = parseBidRequest(body);
    if (!parsed.ok) return errorReply('bad_request', parsed.reason, VERSION_HEADER);
    const request = parsed.request;

    const deadline = Math.min(request.tmax ?? ctx.auctionTimeoutMs, ctx.auctionTimeoutMs);
    const ts = Date.now();
    // A privacy signal that bars user-level processing keeps the user out of the frequency store altogether.
    const privacy = privacyBar(request);
    const viewer = privacy ? undefined : ctx.caps.viewer(openRtbUserId(request, partner.id), ts);
    const rc = openRtbContext(request, index, partner.id, ts, viewer, privacy, sources.of(request, ts));
    const facts = requestFacts(rc, ctx.engineId);
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
      const out = serve(ctx, rc, ic);
      if (!out.won) {
        ctx.emit(noBidEvent(facts, out.reason, imp.id));
        continue;
      }
      const c = out.candidate;
      const bid = toBid(imp, out, ctx.baseUrl, partner.billing_notice === 'burl', ic.nativeAssets);
      // A test request is answered as usual and kept apart from the statistics.
      const event = rc.test
        ? testBidEvent(facts, ic.inventory, out.bidId, c, partner.id)
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

    const elapsed = now() - started;
    ctx.observeAuction?.(elapsed / 1000);
    if (elapsed > deadline) {
      // Too late to be useful to the partner: give the budget back and say so.
      if (taken) for (const t of taken) ctx.budget.giveBack(t.candidate, t.priceMicroCents);
      ctx.emit(makeEvent('nobid', { reason: 'deadline', ...facts }));
      return NO_BID;
    }
    if (bids === undefined || bidEvents === undefined) return NO_BID;
    for (let i = 0; i < bidEvents.length; i++) ctx.emit(bidEvents[i] as EngineEvent);
    return json(200, bidResponse(request.id, bids), VERSION_HEADER);
  };
}
