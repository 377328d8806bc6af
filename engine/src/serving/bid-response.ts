import type { Creative } from '@adnet/schemas/api';
import type { Bid, BidResponse, Imp } from '@adnet/schemas/openrtb';
import type { Served } from '../auction/serve.ts';
import { billingLink, clickLink, impressionLink, winLink } from '../auction/serve.ts';
import { bannerAdm, nativeAdm, vastAdm } from '../openrtb/ad-markup.ts';
import type { NativeAsset } from '../openrtb/native-request.ts';
import type { MarkupLinks } from '../openrtb/ad-markup.ts';

/**
 * The ad markup for what the impression asked: VAST for video, Native 1.2 for native, else a banner. A native
 * impression's assets are those its context parsed from `imp.native.request` (request-context.ts): parsed once per imp.
 */
function markup(
  imp: Imp,
  c: Creative,
  links: MarkupLinks,
  bidId: string,
  nativeAssets: readonly NativeAsset[] | undefined,
): string {
  const type = markupType(imp, c);
  if (type === MTYPE.video) return vastAdm(c, links, bidId);
  if (type === MTYPE.native) return nativeAdm(c, links, nativeAssets);
  return bannerAdm(c, links);
}

/** OpenRTB 2.6 `bid.mtype` (markup type): 1 banner, 2 video, 3 audio (we serve none), 4 native. */
export const MTYPE = { banner: 1, video: 2, audio: 3, native: 4 } as const;

/** The markup a creative is answered with on an imp, as `mtype`: what `markup` writes, decided in one place. */
export function markupType(imp: Imp, c: Creative): Bid['mtype'] {
  if (c.format === 'video' || c.format === 'floating_video') return MTYPE.video;
  if (c.format === 'native' && imp.native) return MTYPE.native;
  return MTYPE.banner;
}

/**
 * One bid of the response: price as CPM in USD, markup with our tracking links, the win notice as
 * `nurl`, and for partners that bill by billing notices, `burl`.
 */
export function toBid(
  imp: Imp,
  s: Served,
  baseUrl: string,
  billsByBurl: boolean,
  nativeAssets: readonly NativeAsset[] | undefined,
): Bid {
  const c = s.candidate;
  const bid: Bid = {
    id: s.bidId,
    impid: imp.id,
    price: s.priceMicroCents / 100_000,
    adm: markup(
      imp,
      c.creative,
      { clickUrl: clickLink(baseUrl, s), impressionUrl: impressionLink(baseUrl, s) },
      s.bidId,
      nativeAssets,
    ),
    nurl: winLink(baseUrl, s),
    crid: String(c.creativeId),
    cid: String(c.campaignId),
    adomain: c.adomain ? [c.adomain] : [],
    mtype: markupType(imp, c.creative),
  };
  if (billsByBurl) bid.burl = billingLink(baseUrl, s);
  if (s.dealId !== undefined) bid.dealid = s.dealId;
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
