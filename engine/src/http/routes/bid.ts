import { gunzipSync } from 'node:zlib';
import { SourceNames } from '../../inventory/source.ts';
import { openRtbContext, openRtbUserId } from '../../auction/request-context.ts';
import type { EngineContext } from '../../context.ts';
import { partnerFor } from '../../index/engine-index.ts';
import { bidResponse } from '../../serving/bid-response.ts';
import { exchangeBids } from '../../serving/exchange-bids.ts';
import { normaliseBidRequest } from '../../openrtb/normalise.ts';
import { parseBidRequest } from '../../openrtb/parse-request.ts';
import { privacyBar } from '../../openrtb/privacy.ts';
import { errorReply, json } from '../adapt.ts';
import type { EngineReply, EngineRequest } from '../adapt.ts';

// Every answer says which OpenRTB version it speaks, as the specification asks of both sides: the one the
// partner sent (2.5 or 2.6; no header at all is 2.5). One frozen object per version, shared by every answer.
const VERSION_HEADERS = {
  '2.5': Object.freeze({ 'x-openrtb-version': '2.5' }),
  '2.6': Object.freeze({ 'x-openrtb-version': '2.6' }),
} as const;
const NO_BID = {
  '2.5': { status: 204, headers: VERSION_HEADERS['2.5'] } as EngineReply,
  '2.6': { status: 204, headers: VERSION_HEADERS['2.6'] } as EngineReply,
} as const;

/** The version a partner speaks: `2.5` or `2.6` (a patch such as `2.6.1` or `2.5.0` too); no header is 2.5; anything else is undefined. */
export function openRtbVersion(header: string | undefined): '2.5' | '2.6' | undefined {
  const v = (header ?? '').trim();
  if (v === '') return '2.5';
  const m = VERSION.exec(v);
  return m ? (m[1] as '2.5' | '2.6') : undefined;
}

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
const VERSION = /^(2\.5|2\.6)(\.\d+)?$/;

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
    const version = openRtbVersion(req.headers['x-openrtb-version']);
    if (!version) return errorReply('bad_request', 'Header x-openrtb-version must be 2.5 or 2.6 (absent: 2.5)');
    const versionHeader = VERSION_HEADERS[version];
    const body = bodyOf(req, ctx.maxBidBodyBytes);
    if (typeof body === 'string') return errorReply('bad_request', body, versionHeader);
    const parsed = parseBidRequest(body);
    if (!parsed.ok) return errorReply('bad_request', parsed.reason, versionHeader);
    // One shape from here on: the OpenRTB 2.6 places, filled from their 2.5 ext places (openrtb/normalise.ts).
    const request = normaliseBidRequest(parsed.request);

    const deadline = Math.min(request.tmax ?? ctx.auctionTimeoutMs, ctx.auctionTimeoutMs);
    const ts = Date.now();
    // A privacy signal that bars user-level processing keeps the user out of the frequency store altogether.
    const privacy = privacyBar(request);
    const viewer = privacy ? undefined : ctx.caps.viewer(openRtbUserId(request, partner.id), ts);
    const rc = openRtbContext(request, index, partner.id, ts, viewer, privacy, sources.of(request, ts));
    const bids = exchangeBids(ctx, request, rc, partner.billing_notice === 'burl', now, started, deadline);
    return bids ? json(200, bidResponse(request.id, bids), versionHeader) : NO_BID[version];
  };
}
