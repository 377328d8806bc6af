import { VIDEO_ZONE_FORMATS } from '@adnet/schemas/publisher';
import type { ServedAd } from '@adnet/schemas/widget';
import { visitorContext, zoneImp } from '../../auction/request-context.ts';
import { beaconLink, clickLink, impressionLink, playbackLink, serve } from '../../auction/serve.ts';
import type { EngineContext } from '../../context.ts';
import { inventoryFacts, makeEvent } from '../../events/make-event.ts';
import { VAST_NS, vastAdm } from '../../openrtb/ad-markup.ts';
import { json } from '../adapt.ts';
import type { EngineReply, EngineRequest } from '../adapt.ts';
import { visitorOf } from '../visitor.ts';

const CORS = { 'access-control-allow-origin': '*', 'cache-control': 'no-store' };
const NO_AD: EngineReply = { status: 204, headers: CORS };
const EMPTY_VAST = `<?xml version="1.0" encoding="UTF-8"?><VAST version="4.0" xmlns="${VAST_NS}"/>`;
const xml = (body: string): EngineReply => ({ status: 200, headers: { ...CORS, 'content-type': 'application/xml; charset=utf-8' }, body });

/**
 * GET /imp?z=<subid>&fp=<fingerprint>&s=<signals>: one ad for a display zone as
 * JSON, or 204 when there is none. Serving takes the price from the budget (a
 * hold); the impression is counted and charged only when the widget's render
 * beacon proves the ad was shown (routes/beacon.ts).
 */
export function impRoute(ctx: EngineContext) {
  return (req: EngineRequest): EngineReply => {
    const index = ctx.index();
    const entry = index?.zones.get(new URLSearchParams(req.query).get('z') ?? '');
    if (!index || !entry?.serving || VIDEO_ZONE_FORMATS.has(entry.zone.format)) return NO_AD;
    const rc = visitorContext(index, visitorOf(req.headers, req.ip), Date.now(), 'widget');
    const ic = zoneImp(rc, entry);
    const where = { ...inventoryFacts(ic.inventory), country: rc.country, device: rc.device };
    const out = serve(ctx, rc, ic);
    if (!out.won) {
      ctx.emit(makeEvent('nobid', { ts: rc.ts, engine: ctx.engineId, reason: out.reason, ...where }));
      return NO_AD;
    }
    const c = out.candidate;
    const cr = c.creative;
    const ad: ServedAd = {
      impression_id: out.ticket,
      format: entry.zone.format,
      creative: { title: cr.title, body: cr.body, cta_text: cr.cta_text, image_url: cr.image_url, image_width: cr.image_width, image_height: cr.image_height },
      click_url: clickLink(ctx.baseUrl, out),
      beacon_url: beaconLink(ctx.baseUrl, out),
    };
    return json(200, ad, CORS);
  };
}

/** GET /vast/<subid>.xml: VAST 4.0 for a video zone; an empty VAST document when there is no ad. */
export function vastRoute(ctx: EngineContext) {
  return (req: EngineRequest): EngineReply => {
    const subid = /^([A-Za-z0-9]{1,32})\.xml$/.exec(req.params[0] ?? '')?.[1];
    const index = ctx.index();
    const entry = subid ? index?.zones.get(subid) : undefined;
    if (!index || !entry?.serving || !VIDEO_ZONE_FORMATS.has(entry.zone.format)) return xml(EMPTY_VAST);
    const visitor = visitorOf(req.headers, req.ip);
    // Players (TVs, server-side stitchers) may send no user agent at all: only a bot's is refused here.
    const rc = visitorContext(index, { ...visitor, bot: visitor.bot && req.headers['user-agent'] !== '' }, Date.now(), 'vast');
    const out = serve(ctx, rc, zoneImp(rc, entry));
    if (!out.won) return xml(EMPTY_VAST);
    // The player fires the Impression pixel when the ad starts: that is what counts (and charges) for video zones.
    return xml(
      vastAdm(
        out.candidate.creative,
        { clickUrl: clickLink(ctx.baseUrl, out), impressionUrl: impressionLink(ctx.baseUrl, out), trackingUrl: playbackLink(ctx.baseUrl, out) },
        out.bidId,
      ),
    );
  };
}
