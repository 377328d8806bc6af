import { VIDEO_ZONE_FORMATS } from '@adnet/schemas/publisher';
import { playerVisitor, visitorContext, widgetUserId, zoneImp } from '../../auction/request-context.ts';
import type { ImpContext, RequestContext } from '../../auction/request-context.ts';
import type { EngineContext } from '../../context.ts';
import { unfilledZone, VAST_SURFACE, zoneAd, zoneAuctionStart } from '../../serving/zone-ad.ts';
import type { ZoneAd } from '../../serving/zone-ad.ts';
import type { EngineReply, EngineRequest } from '../adapt.ts';
import { visitorOf } from '../visitor.ts';
import { emptyVast, ownVideoAnswer, partnerVideoAnswer } from '../widget-answers.ts';

/** GET /vast/<subid>.xml[?u=<first-party id>]: VAST 4.0 for a video zone (serving/zone-ad.ts); an empty VAST document when there is no ad. */
export function vastRoute(ctx: EngineContext) {
  return (req: EngineRequest): EngineReply | Promise<EngineReply> => {
    const subid = /^([A-Za-z0-9]{1,32})\.xml$/.exec(req.params[0] ?? '')?.[1];
    const index = ctx.index();
    const entry = subid ? index?.zones.get(subid) : undefined;
    if (!index || !entry?.serving || !VIDEO_ZONE_FORMATS.has(entry.zone.format)) return emptyVast();
    const visitor = visitorOf(req);
    const started = zoneAuctionStart(ctx, index);
    const now = Date.now();
    const flood = ctx.zoneRequests.record(entry.zone.id, req.ip, '', now);
    // Our floating-video widget names its user (`u`); other players do not, and their viewers cannot be capped.
    const viewer = ctx.caps.viewer(widgetUserId(new URLSearchParams(req.query).get('u')), now);
    const rc = visitorContext(index, playerVisitor(visitor, req.headers['user-agent']), now, 'vast', flood, viewer);
    const ic = zoneImp(rc, entry);
    const ad = zoneAd(ctx, rc, ic, entry, VAST_SURFACE, req, () => rc.viewer?.key, started);
    return ad instanceof Promise ? ad.then((a) => videoAnswer(ctx, rc, ic, a)) : videoAnswer(ctx, rc, ic, ad);
  };
}

function videoAnswer(ctx: EngineContext, rc: RequestContext, ic: ImpContext, ad: ZoneAd): EngineReply {
  if ('kind' in ad) return partnerVideoAnswer(ctx.baseUrl, ad);
  if (ad.won) return ownVideoAnswer(ctx.baseUrl, ad);
  unfilledZone(ctx, rc, ic, ad.reason, false);
  return emptyVast();
}
