import { VIDEO_ZONE_FORMATS } from '@adnet/schemas/publisher';
import type { VastVersion } from '@adnet/schemas/vast';
import { playerVisitor, visitorContext, widgetUserId, zoneImp } from '../../auction/request-context.ts';
import type { ImpContext, RequestContext } from '../../auction/request-context.ts';
import type { EngineContext } from '../../context.ts';
import { queryVastVersion } from '../../openrtb/vast-version.ts';
import { unfilledZone, VAST_SURFACE, zoneAd, zoneAuctionStart } from '../../serving/zone-ad.ts';
import type { ZoneAd } from '../../serving/zone-ad.ts';
import { errorReply } from '../adapt.ts';
import type { EngineReply, EngineRequest } from '../adapt.ts';
import { visitorOf } from '../visitor.ts';
import { CORS, emptyVast, ownVideoAnswer, partnerVideoAnswer } from '../widget-answers.ts';

const BAD_VERSION = errorReply(
  'bad_request',
  'v must be 2, 3 or 4, once: the VAST version (2.0, 3.0 or 4.0; 4.0 without v)',
  CORS,
);

/**
 * GET /vast/<subid>.xml[?v=2|3|4][&u=<first-party id>]: VAST for a video zone (serving/zone-ad.ts), 4.0 unless
 * `v` asks for 2.0 or 3.0 (400 for any other `v`); an empty VAST document of that version when there is no ad.
 */
export function vastRoute(ctx: EngineContext) {
  return (req: EngineRequest): EngineReply | Promise<EngineReply> => {
    const query = new URLSearchParams(req.query);
    const asked = query.getAll('v');
    // A `v` given twice is as unclear as a version we do not write.
    const version = asked.length > 1 ? null : queryVastVersion(asked[0] ?? null);
    if (version === null) return BAD_VERSION;
    const subid = /^([A-Za-z0-9]{1,32})\.xml$/.exec(req.params[0] ?? '')?.[1];
    const index = ctx.index();
    const entry = subid ? index?.zones.get(subid) : undefined;
    if (!index || !entry?.serving || !VIDEO_ZONE_FORMATS.has(entry.zone.format)) return emptyVast(version);
    const visitor = visitorOf(req);
    const started = zoneAuctionStart(ctx, index);
    const now = Date.now();
    const flood = ctx.zoneRequests.record(entry.zone.id, req.ip, '', now);
    // Our floating-video widget names its user (`u`); other players do not, and their viewers cannot be capped.
    const viewer = ctx.caps.viewer(widgetUserId(query.get('u')), now);
    const rc = visitorContext(index, playerVisitor(visitor, req.headers['user-agent']), now, 'vast', flood, viewer);
    const ic = zoneImp(rc, entry);
    ic.vastVersion = version;
    const ad = zoneAd(ctx, rc, ic, entry, VAST_SURFACE, req, () => rc.viewer?.key, started);
    return ad instanceof Promise ? ad.then((a) => videoAnswer(ctx, rc, ic, a)) : videoAnswer(ctx, rc, ic, ad);
  };
}

function videoAnswer(ctx: EngineContext, rc: RequestContext, ic: ImpContext, ad: ZoneAd): EngineReply {
  const version: VastVersion = ic.vastVersion ?? '4.0';
  if ('kind' in ad) return partnerVideoAnswer(ctx.baseUrl, ad, version);
  if (ad.won) return ownVideoAnswer(ctx.baseUrl, ad, version);
  unfilledZone(ctx, rc, ic, ad.reason, false);
  return emptyVast(version);
}
