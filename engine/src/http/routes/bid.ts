import { gunzipSync } from 'node:zlib';
import { SourceNames } from '../../inventory/source.ts';
import { openRtbContext, openRtbUserId } from '../../auction/request-context.ts';
import type { EngineContext } from '../../context.ts';
import { partnerFor } from '../../index/engine-index.ts';
import { bidResponse } from '../../serving/bid-response.ts';
import { exchangeBids } from '../../serving/exchange-bids.ts';
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

/** POST /openrtb/bid: partner check, rate limit, then one auction per imp within the deadline (serving/exchange-bids.ts). */
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
    if (!ctx.limiter.take(partner.id, partner.qps_limit))
      return errorReply('rate_limited', 'Partner QPS limit exceeded', { 'retry-after': '1' });
    if (!VERSION.test((req.headers['x-openrtb-version'] ?? '').trim()))
      return errorReply('bad_request', 'Send header x-openrtb-version: 2.5');
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
    const bids = exchangeBids(ctx, request, rc, partner.billing_notice === 'burl', now, started, deadline);
    return bids ? json(200, bidResponse(request.id, bids), VERSION_HEADER) : NO_BID;
  };
}
