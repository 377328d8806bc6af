import { VIDEO_ZONE_FORMATS } from '@adnet/schemas/publisher';
import type { ServedAd } from '@adnet/schemas/widget';
import { visitorContext, widgetUserId, zoneImp } from '../../auction/request-context.ts';
import { fallbackFor } from '../../auction/fallback.ts';
import { beaconLink, clickLink, impressionLink, playbackLink, serve } from '../../auction/serve.ts';
import type { EngineContext } from '../../context.ts';
import { audienceFacts, inventoryFacts, makeEvent } from '../../events/make-event.ts';
import { VAST_NS, vastAdm } from '../../openrtb/ad-markup.ts';
import type { RequestContext, ImpContext } from '../../auction/request-context.ts';
import type { ServeOutcome } from '../../auction/serve.ts';
import type { ZoneEntry } from '../../index/engine-index.ts';
import { DEMAND_FORMATS } from '../../demand/build-request.ts';
import { eligiblePartners, supplyAuction } from '../../demand/supply.ts';
import { demandClickLink } from '../../demand/demand-ticket.ts';
import type { SupplyOutcome } from '../../demand/supply.ts';
import { vastWrapper } from '../../demand/vast-wrapper.ts';
import type { DemandPartner } from '@adnet/schemas/demand';
import { isSafeHttpUrl } from '@adnet/schemas/url';
import { json } from '../adapt.ts';
import type { EngineReply, EngineRequest } from '../adapt.ts';
import { visitorOf } from '../visitor.ts';

const CORS = { 'access-control-allow-origin': '*', 'cache-control': 'no-store' };
const NO_AD: EngineReply = { status: 204, headers: CORS };
const EMPTY_VAST = `<?xml version="1.0" encoding="UTF-8"?><VAST version="4.0" xmlns="${VAST_NS}"/>`;
const xml = (body: string): EngineReply => ({ status: 200, headers: { ...CORS, 'content-type': 'application/xml; charset=utf-8' }, body });

/**
 * GET /imp?z=<subid>&fp=<fingerprint>&s=<signals>[&u=<first-party id>]: one ad for a display zone as
 * JSON; when there is none, the publisher's fallback (auction/fallback.ts) or 204. Serving takes the price from the budget (a
 * hold); the impression is counted and charged only when the widget's render
 * beacon proves the ad was shown (routes/beacon.ts).
 */
export function impRoute(ctx: EngineContext) {
  return (req: EngineRequest): EngineReply | Promise<EngineReply> => {
    const index = ctx.index();
    const q = new URLSearchParams(req.query);
    const entry = index?.zones.get(q.get('z') ?? '');
    if (!index || !entry?.serving || VIDEO_ZONE_FORMATS.has(entry.zone.format)) return NO_AD;
    // No clock read unless some partner might bid: the path without partners stays as it was.
    const started = ctx.demand && index.demandPartners.length > 0 ? ctx.demand.now() : 0;
    const now = Date.now();
    const flood = ctx.zoneRequests.record(entry.zone.id, req.ip, (q.get('fp') ?? '').slice(0, 64), now);
    const rc = visitorContext(index, visitorOf(req), now, 'widget', flood, ctx.caps.viewer(widgetUserId(q.get('u')), now));
    const ic = zoneImp(rc, entry);
    const out = serve(ctx, rc, ic);
    const partners = demandFor(ctx, entry, rc);
    if (partners) {
      return supplyAuction(ctx.demand as NonNullable<EngineContext['demand']>, supplyInput(ctx, req, rc, entry, out, partners, started, 'widget')).then((o) =>
        o.kind === 'partner' ? partnerAnswer(ctx, entry, o) : displayAnswer(ctx, rc, ic, entry, o.kind === 'own' ? o.served : out),
      );
    }
    return displayAnswer(ctx, rc, ic, entry, out);
  };
}

/** What /imp answers for our own auction's outcome: our ad, else the publisher's fallback, else 204. */
function displayAnswer(ctx: EngineContext, rc: RequestContext, ic: ImpContext, entry: ZoneEntry, out: ServeOutcome): EngineReply {
  if (!out.won) {
    const facts = { ts: rc.ts, engine: ctx.engineId, reason: out.reason, ...inventoryFacts(ic.inventory), ...audienceFacts(rc) };
    ctx.emit(makeEvent('nobid', facts));
    const fallback = fallbackFor(ic.controls, out.reason);
    if (!fallback) return NO_AD;
    ctx.emit(makeEvent('fallback', facts));
    return json(200, fallback, CORS);
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
}

/** The demand partners that may bid on this zone's impression; undefined (and nothing allocated) when none. */
function demandFor(ctx: EngineContext, entry: ZoneEntry, rc: RequestContext): DemandPartner[] | undefined {
  const d = ctx.demand;
  const index = rc.index;
  if (!d || index.demandPartners.length === 0 || !DEMAND_FORMATS.has(entry.zone.format)) return undefined;
  // Invalid traffic (a bot, a flood, a tag on someone else's page) is offered to no one: not ours to sell.
  if (rc.rejected) return undefined;
  const site = index.sites.get(entry.zone.site_id);
  if (!site) return undefined;
  return eligiblePartners(d, index.demandPartners, entry.zone.format, rc.country, d.now(), (id, why) => d.stats.add(id, why));
}

function supplyInput(
  ctx: EngineContext,
  req: EngineRequest,
  rc: RequestContext,
  entry: ZoneEntry,
  own: ServeOutcome,
  partners: DemandPartner[],
  startedAt: number,
  surface: 'widget' | 'vast',
) {
  const referer = req.headers.referer ?? '';
  return {
    partners,
    own,
    startedAt,
    auctionTimeoutMs: ctx.auctionTimeoutMs,
    surface,
    blockedDomains: entry.controls.blockedDomains,
    browser: rc.browser,
    source: entry.source,
    imp: {
      zone: entry.zone,
      site: ctx.index()?.sites.get(entry.zone.site_id) as NonNullable<ReturnType<typeof rc.index.sites.get>>,
      floorMicroCents: entry.controls.floorMicroCents,
      ua: req.headers['user-agent'] ?? '',
      ip: req.ip,
      country: rc.country,
      device: rc.device,
      os: rc.os,
      language: rc.language,
      page: referer && referer.length <= 2048 && isSafeHttpUrl(referer) ? referer : undefined,
      userKey: rc.viewer?.key,
    },
  };
}

/**
 * A partner's winning ad. A banner: the widget shows its markup in a sandboxed iframe. A Native answer
 * (native zone) or a notification (in-page push zone): its fields in our own ad's shape, which the
 * widget renders with the template it uses for ours (texts as text), its link our partner click link
 * (/c/d.<ticket>/dsp, routes/demand.ts), a native card's image pixels fired by the widget after our
 * tracker. Either way our impression tracker is the beacon, counted once.
 */
function partnerAnswer(ctx: EngineContext, entry: ZoneEntry, o: Extract<SupplyOutcome, { kind: 'partner' }>): EngineReply {
  const beacon = `${ctx.baseUrl}/openrtb/imptracker/${o.token}`;
  const format = entry.zone.format;
  if (format === 'native' || format === 'in_page_push') {
    const n = o.native;
    const p = o.push;
    // Read and checked when the bid was taken; these zones never show a partner's raw markup.
    const creative: ServedAd['creative'] | undefined = n
      ? {
          title: n.title,
          body: n.text || null,
          cta_text: n.cta || null,
          image_url: n.image,
          image_width: n.imageW ?? null,
          image_height: n.imageH ?? null,
          sponsored_by: n.sponsored || null,
        }
      : // The icon is the toast's image, as our in-page push creatives' image is (https, or none).
        p && { title: p.title, body: p.text || null, cta_text: null, image_url: p.icon || null, image_width: null, image_height: null };
    if (!creative) return NO_AD;
    const ad: ServedAd = {
      impression_id: o.token,
      format,
      creative,
      click_url: demandClickLink(ctx.baseUrl, o.token),
      beacon_url: beacon,
      ...(n ? { imp_trackers: n.pixels } : {}),
    };
    return json(200, ad, CORS);
  }
  const z = (n: number | undefined) => (n !== undefined && Number.isInteger(n) && n > 0 && n <= 4000 ? n : null);
  return json(200, { demand: { impression_id: o.token, html: o.adm, w: z(o.w), h: z(o.h), beacon_url: beacon } }, CORS);
}

/** GET /vast/<subid>.xml[?u=<first-party id>]: VAST 4.0 for a video zone; an empty VAST document when there is no ad. */
export function vastRoute(ctx: EngineContext) {
  return (req: EngineRequest): EngineReply | Promise<EngineReply> => {
    const subid = /^([A-Za-z0-9]{1,32})\.xml$/.exec(req.params[0] ?? '')?.[1];
    const index = ctx.index();
    const entry = subid ? index?.zones.get(subid) : undefined;
    if (!index || !entry?.serving || !VIDEO_ZONE_FORMATS.has(entry.zone.format)) return xml(EMPTY_VAST);
    const visitor = visitorOf(req);
    // No clock read unless some partner might bid: the path without partners stays as it was.
    const started = ctx.demand && index.demandPartners.length > 0 ? ctx.demand.now() : 0;
    const now = Date.now();
    const flood = ctx.zoneRequests.record(entry.zone.id, req.ip, '', now);
    // Players (TVs, server-side stitchers) may send no user agent at all: only a bot's is refused here.
    // The player's page is not the publisher's (players fetch VAST from anywhere): no page check.
    // Our floating-video widget names its user (`u`); other players do not, and their viewers cannot be capped.
    const viewer = ctx.caps.viewer(widgetUserId(new URLSearchParams(req.query).get('u')), now);
    const rc = visitorContext(index, { ...visitor, bot: visitor.bot && req.headers['user-agent'] !== '', pageHost: undefined }, now, 'vast', flood, viewer);
    const ic = zoneImp(rc, entry);
    const out = serve(ctx, rc, ic);
    const partners = demandFor(ctx, entry, rc);
    if (partners) {
      return supplyAuction(ctx.demand as NonNullable<EngineContext['demand']>, supplyInput(ctx, req, rc, entry, out, partners, started, 'vast')).then((o) =>
        o.kind === 'partner' ? xml(vastWrapper(ctx.baseUrl, o.token, o.adm)) : videoAnswer(ctx, rc, ic, o.kind === 'own' ? o.served : out),
      );
    }
    return videoAnswer(ctx, rc, ic, out);
  };
}

function videoAnswer(ctx: EngineContext, rc: RequestContext, ic: ImpContext, out: ServeOutcome): EngineReply {
  if (!out.won) {
    ctx.emit(makeEvent('nobid', { ts: rc.ts, engine: ctx.engineId, reason: out.reason, ...inventoryFacts(ic.inventory), ...audienceFacts(rc) }));
    return xml(EMPTY_VAST);
  }
  // The player fires the Impression pixel when the ad starts: that is what counts (and charges) for video zones.
  return xml(
    vastAdm(
      out.candidate.creative,
      { clickUrl: clickLink(ctx.baseUrl, out), impressionUrl: impressionLink(ctx.baseUrl, out), trackingUrl: playbackLink(ctx.baseUrl, out) },
      out.bidId,
    ),
  );
}
