import { POP_ZONE_FORMATS, VIDEO_ZONE_FORMATS } from '@adnet/schemas/publisher';
import { visitorContext, widgetUserId, zoneImp } from '../../auction/request-context.ts';
import type { EngineContext } from '../../context.ts';
import { unfilledZone, WIDGET_SURFACE, zoneAd, zoneAuctionStart } from '../../serving/zone-ad.ts';
import type { ZoneAd } from '../../serving/zone-ad.ts';
import type { ImpContext, RequestContext } from '../../auction/request-context.ts';
import type { ZoneEntry } from '../../index/engine-index.ts';
import { json } from '../adapt.ts';
import type { EngineReply, EngineRequest } from '../adapt.ts';
import { visitorCookieId, visitorOf } from '../visitor.ts';
import { popunderAsk } from '../../serving/popunder.ts';
import { gdprWithoutConsent } from '../../openrtb/privacy.ts';
import { CORS, NO_AD, ownAdAnswer, partnerAnswer } from '../widget-answers.ts';

export { vastRoute } from './vast-serve.ts';

/**
 * GET /imp?z=<subid>&fp=<fingerprint>&s=<signals>[&u=<first-party id>][&gdpr=1&gdpr_consent=<TC string>]: one ad for a display zone as
 * JSON (serving/zone-ad.ts: ours or a partner's); when there is none, the publisher's fallback
 * (auction/fallback.ts) or 204. Serving takes the price from the budget (a hold); the impression is
 * counted and charged only when the widget's render beacon proves the ad was shown (routes/beacon.ts). A popunder
 * zone is answered its pop (serving/popunder.ts), counted only when the widget's beacon says its window opened.
 */
export function impRoute(ctx: EngineContext) {
  return (req: EngineRequest): EngineReply | Promise<EngineReply> => {
    const index = ctx.index();
    const q = new URLSearchParams(req.query);
    const entry = index?.zones.get(q.get('z') ?? '');
    const format = entry?.zone.format ?? '';
    if (!index || !entry?.serving || VIDEO_ZONE_FORMATS.has(format) || POP_ZONE_FORMATS.has(format))
      return format === 'popunder' && entry?.serving
        ? popAnswer(ctx, req, entry, q)
        : withOrigin(NO_AD, req.headers.origin);
    const started = zoneAuctionStart(ctx, index);
    const now = Date.now();
    const flood = ctx.zoneRequests.record(entry.zone.id, req.ip, (q.get('fp') ?? '').slice(0, 64), now);
    const visitor = visitorOf(req);
    if (gdprWithoutConsent(q.get('gdpr'), q.get('gdpr_consent'))) visitor.privacy = 'gdpr';
    const viewer = ctx.caps.viewer(widgetUserId(q.get('u')), now, visitorCookieId(req.headers.cookie));
    const rc = visitorContext(index, visitor, now, 'widget', flood, viewer);
    const ic = zoneImp(rc, entry);
    const ad = zoneAd(ctx, rc, ic, entry, WIDGET_SURFACE, req, () => rc.viewer?.key, started);
    const origin = req.headers.origin;
    return ad instanceof Promise
      ? ad.then((a) => withOrigin(displayAnswer(ctx, rc, ic, entry, a), origin))
      : withOrigin(displayAnswer(ctx, rc, ic, entry, ad), origin);
  };
}

/** A popunder zone's pop (serving/popunder.ts), kept by the widget until the visitor's click; 204 for none. */
async function popAnswer(
  ctx: EngineContext,
  req: EngineRequest,
  entry: ZoneEntry,
  q: URLSearchParams,
): Promise<EngineReply> {
  const pop = await popunderAsk(ctx, {
    entry,
    visitor: visitorOf(req),
    ip: req.ip,
    fp: (q.get('fp') ?? '').slice(0, 64),
    now: Date.now(),
  });
  return withOrigin(pop ? json(200, pop, CORS) : NO_AD, req.headers.origin);
}

/**
 * The widget asks with its credentials, so that our cookie (the audience pixel's id of the browser,
 * docs/audiences.md) comes along: a credentialed answer must name the page's origin rather than `*`.
 */
function withOrigin(reply: EngineReply, origin: string | undefined): EngineReply {
  if (!origin) return reply;
  // One literal of fixed keys, not a spread of the reply's: the spread cost /imp 4 us a request (bench/src/ab-imp.ts).
  // The answers here carry CORS (widget-answers.ts) and, with a body, a content type: nothing else to keep.
  const type = reply.headers?.['content-type'];
  const headers: Record<string, string> = {
    'access-control-allow-origin': origin,
    'access-control-allow-credentials': 'true',
    vary: 'Origin',
    'cache-control': 'no-store',
  };
  if (type !== undefined) headers['content-type'] = type;
  // A new reply: NO_AD and the other answers may be shared constants.
  return { status: reply.status, headers, body: reply.body };
}

/** What /imp answers for the zone's ad: ours or a partner's, else the publisher's fallback, else 204. */
// eslint-disable-next-line @typescript-eslint/max-params -- hot path: answers every /imp request
function displayAnswer(
  ctx: EngineContext,
  rc: RequestContext,
  ic: ImpContext,
  entry: ZoneEntry,
  ad: ZoneAd,
): EngineReply {
  if ('kind' in ad) return partnerAnswer(ctx.baseUrl, entry, ad);
  if (ad.won) return ownAdAnswer(ctx.baseUrl, entry, ad);
  const fallback = unfilledZone(ctx, rc, ic, ad.reason, true);
  return fallback ? json(200, fallback, CORS) : NO_AD;
}
