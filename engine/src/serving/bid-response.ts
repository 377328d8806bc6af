import type { Creative } from '@adnet/schemas/api';
import type { Bid, BidResponse, Imp } from '@adnet/schemas/openrtb';
import type { Served } from '../auction/serve.ts';
import { billingLink, clickLink, impressionLink, winLink } from '../auction/serve.ts';
import { VAST_INLINE_PROTOCOL } from '@adnet/schemas/vast';
import type { ImpContext } from '../auction/request-types.ts';
import { bannerAdm, nativeAdm } from '../openrtb/ad-markup.ts';
import type { MarkupLinks } from '../openrtb/ad-markup.ts';
import { vastAdm } from '../openrtb/vast-document.ts';

/** What the markup needs of the imp's context, worked out once per imp (request-context.ts). */
export type MarkupFacts = Pick<ImpContext, 'nativeAssets' | 'vastVersion'>;

const isVideo = (c: Creative): boolean => c.format === 'video' || c.format === 'floating_video';

/**
 * The ad markup for what the impression asked: VAST in the version its `video.protocols` allow for video,
 * Native 1.2 for native (the assets its context parsed from `imp.native.request`), else a banner.
 */
function markup(imp: Imp, s: Served, links: MarkupLinks, facts: MarkupFacts): string {
  const c = s.candidate.creative;
  const type = markupType(imp, c);
  if (type === MTYPE.video) return vastAdm(c, links, s.bidId, facts.vastVersion ?? '4.0');
  if (type === MTYPE.native) return nativeAdm(c, links, facts.nativeAssets);
  return bannerAdm(c, links);
}

/** OpenRTB 2.6 `bid.mtype` (markup type): 1 banner, 2 video, 3 audio (we serve none), 4 native. */
export const MTYPE = { banner: 1, video: 2, audio: 3, native: 4 } as const;

/** The markup a creative is answered with on an imp, as `mtype`: what `markup` writes, decided in one place. */
export function markupType(imp: Imp, c: Creative): Bid['mtype'] {
  if (isVideo(c)) return MTYPE.video;
  if (c.format === 'native' && imp.native) return MTYPE.native;
  return MTYPE.banner;
}

/** How a request's bids are answered, the same for each of its bids (made once per request). */
export interface BidAnswering {
  baseUrl: string;
  /** The partner bills by billing notices (`burl`). */
  billsByBurl: boolean;
}

/**
 * One bid of the response: price as CPM in USD, markup with our tracking links, the win notice as
 * `nurl`, for partners that bill by billing notices, `burl`, and for video the VAST version as `protocol`.
 */
export function toBid(imp: Imp, s: Served, facts: MarkupFacts, answering: BidAnswering): Bid {
  const { baseUrl, billsByBurl } = answering;
  const c = s.candidate;
  const bid: Bid = {
    id: s.bidId,
    impid: imp.id,
    price: s.priceMicroCents / 100_000,
    adm: markup(imp, s, { clickUrl: clickLink(baseUrl, s), impressionUrl: impressionLink(baseUrl, s) }, facts),
    nurl: winLink(baseUrl, s),
    crid: String(c.creativeId),
    cid: String(c.campaignId),
    adomain: c.adomain ? [c.adomain] : [],
    mtype: markupType(imp, c.creative),
  };
  if (billsByBurl) bid.burl = billingLink(baseUrl, s);
  if (s.dealId !== undefined) bid.dealid = s.dealId;
  if (isVideo(c.creative)) bid.protocol = VAST_INLINE_PROTOCOL[facts.vastVersion ?? '4.0'];
  if (c.format === 'banner') {
    bid.w = c.creative.image_width ?? undefined;
    bid.h = c.creative.image_height ?? undefined;
  }
  return bid;
}

export const bidResponse = (id: string, bids: Bid[]): BidResponse => ({
  id,
  seatbid: [{ seat: 'adnet', bid: bids }],
  cur: 'USD',
});
