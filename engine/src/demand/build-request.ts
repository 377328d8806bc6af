import { NATIVE_IN_PAGE_PUSH_REQUEST, NATIVE_PUSH_REQUEST, NATIVE_SUPPLY_REQUEST } from './native.ts';
import type { OsFamily } from '@adnet/schemas/api';
import { alpha2ToAlpha3Code } from '@adnet/schemas/geo';
import type { OutgoingBidRequest } from '@adnet/schemas/openrtb';
import { SITE_CATEGORIES } from '@adnet/schemas/publisher';
import type { StoredSite, StoredZone } from '@adnet/schemas/publisher';
import type { VastVersion } from '@adnet/schemas/vast';

/**
 * Zone formats offered to demand partners when a page or a player asks (/imp, /vast). Push slots are
 * offered too, but by the push sender when it sends a notification (push/push-sender.ts), not here.
 */
export const DEMAND_FORMATS: ReadonlySet<string> = new Set([
  'banner',
  'native',
  'in_page_push',
  'video',
  'floating_video',
]);

/** The Native 1.2 request a native-shaped zone sends (native.ts); undefined for banner and video zones. */
const NATIVE_REQUESTS: Partial<Record<string, string>> = {
  native: NATIVE_SUPPLY_REQUEST,
  push: NATIVE_PUSH_REQUEST,
  in_page_push: NATIVE_IN_PAGE_PUSH_REQUEST,
};

/** What one impression on our zone says about where and to whom it is shown. */
export interface SupplyImp {
  auctionId: string;
  zone: StoredZone;
  site: StoredSite;
  floorMicroCents: number;
  ua: string;
  ip: string;
  /** Lower-case alpha-2, when known. */
  country: string | undefined;
  device: string | undefined;
  os: OsFamily | undefined;
  language: string | undefined;
  /** The page, when the browser named one (Referer). */
  page: string | undefined;
  /** A hash of our first-party id (never the id itself); undefined without one. */
  userKey: string | undefined;
  /** A video zone: the VAST version its player asked for (`?v=`); partners are offered that version and those below it. */
  vastVersion?: VastVersion | undefined;
  tmaxMs: number;
}

/** The VAST protocols (inline and wrapper) a partner may answer a player of each version with. */
const VIDEO_PROTOCOLS: Record<VastVersion, number[]> = {
  '2.0': [2, 5],
  '3.0': [2, 3, 5, 6],
  '4.0': [2, 3, 5, 6, 7, 8],
};

const DEVICE_TYPE: Record<string, number> = { desktop: 2, mobile: 4, tablet: 5 };
const OS_NAME: Record<OsFamily, string> = {
  android: 'Android',
  ios: 'iOS',
  windows: 'Windows',
  macos: 'macOS',
  linux: 'Linux',
  chromeos: 'Chrome OS',
  other: 'other',
};

/** The imp id of our one-imp requests (`${AUCTION_IMP_ID}`). */
export const SUPPLY_IMP_ID = '1';

/**
 * The OpenRTB 2.5 bid request for one impression on our zone: first price is not claimed (`at` 2),
 * the zone's floor in USD, https markup required (`secure`), the site's IAB category, the viewer's
 * country as alpha-3, and `source.tid` equal to the auction id so partners can tell one auction apart.
 */
export function buildSupplyRequest(s: SupplyImp): OutgoingBidRequest {
  const z = s.zone;
  const video = z.format === 'video' || z.format === 'floating_video';
  const nativeRequest = NATIVE_REQUESTS[z.format];
  const country = s.country ? alpha2ToAlpha3Code(s.country) : undefined;
  return {
    id: s.auctionId,
    at: 2,
    imp: [
      {
        id: SUPPLY_IMP_ID,
        tagid: z.subid,
        bidfloor: s.floorMicroCents / 100_000,
        bidfloorcur: 'USD',
        secure: 1,
        ...(video
          ? {
              video: {
                mimes: ['video/mp4'],
                protocols: VIDEO_PROTOCOLS[s.vastVersion ?? '4.0'],
                minduration: 1,
                maxduration: 60,
                w: 640,
                h: 360,
              },
            }
          : nativeRequest
            ? { native: { request: nativeRequest, ver: '1.2' } }
            : {
                banner: {
                  w: z.banner_width ?? 0,
                  h: z.banner_height ?? 0,
                  format: [{ w: z.banner_width ?? 0, h: z.banner_height ?? 0 }],
                },
              }),
      },
    ],
    site: {
      id: String(s.site.id),
      domain: s.site.domain,
      ...(s.page ? { page: s.page } : {}),
      cat: [SITE_CATEGORIES[s.site.category]],
      publisher: { id: String(s.site.publisher_id) },
    },
    device: {
      // A push subscriber's browser and address are not kept (only its audience): none is sent then.
      ...(s.ua ? { ua: s.ua } : {}),
      ...(s.ip ? { ip: s.ip } : {}),
      ...(s.device && DEVICE_TYPE[s.device] ? { devicetype: DEVICE_TYPE[s.device] } : {}),
      ...(s.os ? { os: OS_NAME[s.os] } : {}),
      ...(s.language ? { language: s.language } : {}),
      ...(country ? { geo: { country } } : {}),
    },
    ...(s.userKey ? { user: { id: s.userKey } } : {}),
    regs: { coppa: 0 },
    source: { tid: s.auctionId },
    tmax: s.tmaxMs,
    cur: ['USD'],
  };
}
