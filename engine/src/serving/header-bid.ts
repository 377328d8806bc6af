import type { HbBid, HbImp, HbRequest } from '@adnet/schemas/header-bid';
import { HB_MTYPE } from '@adnet/schemas/header-bid';
import type { CampaignFormat } from '@adnet/schemas/api';
import type { FrequencyCaps } from '../auction/ports.ts';
import { visitorContext, widgetUserId, zoneImp } from '../auction/request-context.ts';
import type { Visitor } from '../auction/request-types.ts';
import { beaconLink, clickLink, impressionLink, playbackLink } from '../auction/serve.ts';
import type { Served } from '../auction/serve.ts';
import type { PartnerWin } from '../demand/supply.ts';
import { vastWrapper } from '../demand/vast-wrapper.ts';
import type { ZoneRequestRate } from '../fraud/zone-request-rate.ts';
import type { EngineIndex, ZoneEntry } from '../index/engine-index.ts';
import { vastAdm } from '../openrtb/vast-document.ts';
import { bannerHbAdm, nativeHbAdm, partnerBannerHbAdm } from '../openrtb/hb-markup.ts';
import { parseNativeRequest } from '../openrtb/native-request.ts';
import { unfilledZone, VAST_SURFACE, WIDGET_SURFACE, zoneAd, zoneAuctionStart } from './zone-ad.ts';
import type { Asker, ZoneAd, ZoneAdPorts } from './zone-ad.ts';

// POST /hb/bid (docs/browser-endpoints.md#header-bidding-prebidjs): our Prebid.js adapter's request, each imp one of
// our zones by its subid in `tagid`, served as /imp serves it (serving/zone-ad.ts): the zone's floor, blocks,
// invalid-traffic rules, sources, caps and partners. Answering takes the price from a budget hold and counts
// nothing: the impression is our render beacon (/b, or a video's VAST Impression pixel), counted and charged once.

export interface HeaderBidPorts extends ZoneAdPorts {
  baseUrl: string;
  zoneRequests: ZoneRequestRate;
  caps: FrequencyCaps;
}

export interface HeaderBidAsk {
  index: EngineIndex;
  visitor: Visitor;
  request: HbRequest;
  /** The page's request: its headers and address, for the flood rule and partners. */
  asker: Asker;
}

type Media = keyof typeof HB_MTYPE;

const VIDEO_FORMATS: ReadonlySet<string> = new Set<CampaignFormat>(['video', 'floating_video']);

/** The media type an imp offers for the zone: the zone's own, when the imp asks for it (a banner in the zone's size). */
function mediaFor(entry: ZoneEntry, imp: HbImp): Media | undefined {
  const z = entry.zone;
  if (z.format === 'banner' && imp.banner) {
    const sizes = [...(imp.banner.format ?? []), ...(imp.banner.w && imp.banner.h ? [imp.banner] : [])];
    const fits = sizes.length === 0 || sizes.some((s) => s.w === z.banner_width && s.h === z.banner_height);
    return fits ? 'banner' : undefined;
  }
  if (z.format === 'native' && imp.native) return 'native';
  if (VIDEO_FORMATS.has(z.format) && imp.video) {
    const v = imp.video;
    // Our VAST is 4.0 inline with one MP4 (docs/openrtb.md): offered only to a player that takes it.
    const takes = (!v.mimes || v.mimes.includes('video/mp4')) && (!v.protocols || v.protocols.includes(7));
    return takes ? 'video' : undefined;
  }
  return undefined;
}

/** The bids for a request's imps, at most one per zone; none for an imp whose zone is unknown, paused or not its kind. */
export function headerBids(p: HeaderBidPorts, ask: HeaderBidAsk): HbBid[] | Promise<HbBid[]> {
  const seen = new Set<string>();
  const now = Date.now();
  const bids: (HbBid | undefined | Promise<HbBid | undefined>)[] = [];
  for (const imp of ask.request.imp) {
    const entry = ask.index.zones.get(imp.tagid);
    if (!entry?.serving || seen.has(imp.tagid)) continue;
    seen.add(imp.tagid);
    const media = mediaFor(entry, imp);
    if (media) bids.push(zoneBid(p, ask, { imp, entry, media, now }));
  }
  const done = (all: (HbBid | undefined)[]) => all.filter((b): b is HbBid => b !== undefined);
  // Without partners every zone answers at once: no promise unless some auction waits on them.
  if (!bids.some((b) => b instanceof Promise)) return done(bids as (HbBid | undefined)[]);
  return Promise.all(bids.map((b) => Promise.resolve(b))).then(done);
}

interface ZoneImp {
  imp: HbImp;
  entry: ZoneEntry;
  media: Media;
  now: number;
}

/** One zone's auction, as /imp (display zones) or /vast (video zones) runs it; its no-bid event when nothing fills it. */
function zoneBid(p: HeaderBidPorts, ask: HeaderBidAsk, z: ZoneImp): HbBid | undefined | Promise<HbBid | undefined> {
  const { entry, media, now } = z;
  const video = media === 'video';
  const surface = video ? VAST_SURFACE : WIDGET_SURFACE;
  const started = zoneAuctionStart(p, ask.index);
  const flood = p.zoneRequests.record(entry.zone.id, ask.asker.ip, '', now);
  const viewer = p.caps.viewer(widgetUserId(ask.request.ext?.adnet?.u ?? null), now);
  const rc = visitorContext(ask.index, ask.visitor, now, video ? 'vast' : 'widget', flood, viewer);
  // The surface decides how the ad renders and which click rules judge it; the statistics tell Prebid apart.
  rc.integration = 'prebid';
  const nativeAssets = media === 'native' ? parseNativeRequest(z.imp.native?.request) : undefined;
  const ic = { ...zoneImp(rc, entry), nativeAssets };
  const answer = (ad: ZoneAd): HbBid | undefined => {
    if ('kind' in ad) return partnerBid(p.baseUrl, z, ad);
    if (ad.won) return ownBid(p.baseUrl, z, ad, nativeAssets);
    unfilledZone(p, rc, ic, ad.reason, false);
    return undefined;
  };
  // A partner's native answer is read for our widget's card, not for the page's native template: native zones are
  // ours alone here, so no partner is told it won an ad that is never shown.
  const ports = media === 'native' ? { ...p, demand: undefined } : p;
  const ad = zoneAd(ports, rc, ic, entry, surface, ask.asker, () => rc.viewer?.key, started);
  return ad instanceof Promise ? ad.then(answer) : answer(ad);
}

/** The size a bid names: the zone's banner size, the player's size, else the creative's. */
function sizeOf(z: ZoneImp, w: number | null | undefined, h: number | null | undefined) {
  const zone = z.entry.zone;
  if (z.media === 'banner' && zone.banner_width && zone.banner_height)
    return { w: zone.banner_width, h: zone.banner_height };
  if (z.media === 'video' && z.imp.video?.w && z.imp.video.h) return { w: z.imp.video.w, h: z.imp.video.h };
  return w && h ? { w, h } : {};
}

/** Win notices name our own ads only: a partner's is sent by the supply side. */
export const hbWonLink = (baseUrl: string, s: Served): string => `${baseUrl}/hb/won/${s.ticket}`;

function ownBid(baseUrl: string, z: ZoneImp, s: Served, nativeAssets: ReturnType<typeof parseNativeRequest>): HbBid {
  const c = s.candidate.creative;
  const links = { clickUrl: clickLink(baseUrl, s), beaconUrl: beaconLink(baseUrl, s) };
  const adm =
    z.media === 'video'
      ? vastAdm(
          c,
          {
            clickUrl: links.clickUrl,
            impressionUrl: impressionLink(baseUrl, s),
            trackingUrl: playbackLink(baseUrl, s),
          },
          s.bidId,
        )
      : z.media === 'native'
        ? nativeHbAdm(c, links, nativeAssets)
        : bannerHbAdm(c, links);
  return {
    id: s.bidId,
    impid: z.imp.id,
    price: s.priceMicroCents / 100_000,
    adm,
    crid: String(s.candidate.creativeId),
    ...sizeOf(z, c.image_width, c.image_height),
    mtype: HB_MTYPE[z.media],
    adomain: s.candidate.adomain ? [s.candidate.adomain] : [],
    nurl: hbWonLink(baseUrl, s),
  };
}

/** A partner's winning ad: a banner's markup with our impression tracker after it, a video's in our VAST Wrapper (which carries the tracker). */
function partnerBid(baseUrl: string, z: ZoneImp, o: PartnerWin): HbBid {
  const tracker = `${baseUrl}/openrtb/imptracker/${o.token}`;
  return {
    id: o.auctionId,
    impid: z.imp.id,
    price: o.priceMicroCents / 100_000,
    adm:
      z.media === 'video' ? vastWrapper({ baseUrl, token: o.token, adm: o.adm }) : partnerBannerHbAdm(o.adm, tracker),
    crid: `p${o.partnerId}`,
    ...sizeOf(z, o.w, o.h),
    mtype: HB_MTYPE[z.media],
  };
}
