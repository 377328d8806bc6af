import { checkHttpUrl, isSafeHttpUrl } from '@adnet/schemas/url';

/** Asset ids of the native request we send, and what the answer's assets are matched by. */
const ASSET = { title: 1, image: 2, text: 3, cta: 4, sponsored: 5 } as const;

/**
 * The OpenRTB Native 1.2 request for one of our native zones (`imp.native.request`, a JSON string): a
 * content-feed ad (context 1, in-feed placement 1) with a required title (90 characters) and main image
 * (at least 300x157, ~1.91:1), an optional description, call to action and "sponsored by" (what our
 * widget's native card shows). The same text for every impression, built once.
 */
export const NATIVE_SUPPLY_REQUEST = JSON.stringify({
  ver: '1.2',
  context: 1,
  plcmttype: 1,
  plcmtcnt: 1,
  assets: [
    { id: ASSET.title, required: 1, title: { len: 90 } },
    { id: ASSET.image, required: 1, img: { type: 3, wmin: 300, hmin: 157 } },
    { id: ASSET.text, required: 0, data: { type: 2, len: 140 } },
    { id: ASSET.cta, required: 0, data: { type: 12, len: 25 } },
    { id: ASSET.sponsored, required: 0, data: { type: 1, len: 25 } },
  ],
  eventtrackers: [{ event: 1, methods: [1] }],
});

/** Asset ids of the push request. */
const PUSH_ASSET = { title: 1, icon: 2, text: 3 } as const;
/** What a notification of ours carries at most: the push creative's limits (admin's creative rules). */
export const PUSH_LIMITS = { title: 50, text: 120 } as const;
/** A URL we keep or send on is at most this long: a campaign's landing_url limit (the API's URL rule). */
const URL_MAX = 2048;

/** Zone formats whose ad is a notification (title, icon, text): a push slot, or an in-page push shown in the page. */
export const isPushShaped = (format: string): format is 'push' | 'in_page_push' =>
  format === 'push' || format === 'in_page_push';

/**
 * The Native 1.2 request for a notification-shaped slot: outside the core content (context 1, placement
 * 3), `ext.format` saying which (`push`: sent to a subscriber, shown by the OS; `in_page_push`: shown by
 * our widget as a toast over the publisher's page), a required title (50 characters, as our push
 * creatives), an optional text (data type 2, 120) and icon (image type 1, at least 64x64). The answer's
 * `link.url` is the landing our click link redirects to.
 */
const pushShapedRequest = (format: 'push' | 'in_page_push'): string =>
  JSON.stringify({
    ver: '1.2',
    context: 1,
    plcmttype: 3,
    plcmtcnt: 1,
    assets: [
      { id: PUSH_ASSET.title, required: 1, title: { len: PUSH_LIMITS.title } },
      { id: PUSH_ASSET.icon, required: 0, img: { type: 1, wmin: 64, hmin: 64 } },
      { id: PUSH_ASSET.text, required: 0, data: { type: 2, len: PUSH_LIMITS.text } },
    ],
    ext: { format },
  });
/** Built once each: the same text for every slot. */
export const NATIVE_PUSH_REQUEST = pushShapedRequest('push');
export const NATIVE_IN_PAGE_PUSH_REQUEST = pushShapedRequest('in_page_push');

/** Why a partner's answer cannot be shown (schemas/src/demand.ts DEMAND_DISCARDS). */
export type AnswerDiscard = 'no_markup' | 'bad_icon' | 'bad_landing';
export type AnswerRead<T> = { ok: true; answer: T } | { ok: false; discard: AnswerDiscard };

/**
 * Where a click on a partner's ad leads, kept with the win for our click redirect (win-store.ts): the
 * landing, and the partner's `link.clicktrackers` (http(s), at most three) we call once on a valid click.
 */
export interface PartnerLink {
  landing: string;
  clicktrackers: string[];
}

/** A partner's native ad for a native zone, in the fields our widget's native card shows. */
export interface NativeAnswer extends PartnerLink {
  title: string;
  /** The main image, https. */
  image: string;
  /** Its size when the partner gave one (1-4000 pixels), else undefined. */
  imageW: number | undefined;
  imageH: number | undefined;
  text: string;
  cta: string;
  sponsored: string;
  /** Impression pixels the partner asked for (`imptrackers`, and image `eventtrackers` of impressions), https, at most five. */
  pixels: string[];
}

/** A partner's notification (a push slot, an in-page push zone): plain texts within our limits, an https icon or ''. */
export interface PushAnswer extends PartnerLink {
  title: string;
  text: string;
  /** '' when the partner sent none. */
  icon: string;
}

const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const obj = (v: unknown): Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
const size = (v: unknown): number | undefined =>
  typeof v === 'number' && Number.isInteger(v) && v > 0 && v <= 4000 ? v : undefined;

// eslint-disable-next-line no-control-regex -- stripping control characters is the point
const CONTROL = /[\u0000-\u001F\u007F-\u009F\u2028\u2029]+/g;
/** A text shown as it is (the widget's text nodes, the OS's notification): control characters and line separators become a space, the length is bounded. */
const plain = (v: unknown, max: number): string => str(v).replace(CONTROL, ' ').trim().slice(0, max).trim();

/** The URL as the API would store it (checkHttpUrl), when it passes, is printable ASCII and fits; else undefined. */
function checkedUrl(raw: string, httpsOnly: boolean): string | undefined {
  if (raw.length > URL_MAX) return undefined;
  const c = checkHttpUrl(raw, { httpsOnly });
  return c.ok && c.href.length <= URL_MAX && isSafeHttpUrl(c.href) ? c.href : undefined;
}
// What the publisher's page or the OS loads (image, icon, pixels) must be https: http is mixed content on a page.
const httpsUrl = (raw: string): string | undefined => checkedUrl(raw, true);

/** The Native 1.2 response in `adm`, bare or as `{native: ...}` as 1.0/1.1 wrote it, and its assets by id; undefined when not JSON. */
function nativeResponse(
  adm: string,
): { n: Record<string, unknown>; byId: Map<unknown, Record<string, unknown>> } | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(adm);
  } catch {
    return undefined;
  }
  const root = obj(parsed);
  const n = root.native === undefined ? root : obj(root.native);
  return { n, byId: new Map(arr(n.assets).map((a) => [obj(a).id, obj(a)])) };
}

/**
 * The answer's `link`: its url when it is what a campaign's `landing_url` may be (the API's URL rule:
 * absolute http(s), no control characters, no `]]>`, at most 2048 characters, normalised) and its host,
 * or a parent of it, is not in `blockedDomains` (the publisher's block list); its click trackers checked alike.
 */
function readLink(n: Record<string, unknown>, blockedDomains: ReadonlySet<string> | null): PartnerLink | undefined {
  const link = obj(n.link);
  const landing = checkedUrl(str(link.url), false);
  if (landing === undefined || blockedHost(landing, blockedDomains)) return undefined;
  const trackers = arr(link.clicktrackers).flatMap((u) => checkedUrl(str(u), false) ?? []);
  return { landing, clicktrackers: [...new Set(trackers)].slice(0, 3) };
}

/** The landing's host or a parent of it is blocked, matched as a campaign's landing domain is (index/candidate.ts). */
function blockedHost(url: string, blocked: ReadonlySet<string> | null): boolean {
  return isBlockedDomain(new URL(url).hostname, blocked);
}

/** A domain (a landing's host, a bid's `adomain`) or a parent of it is in the publisher's block list. */
export function isBlockedDomain(domain: string, blocked: ReadonlySet<string> | null): boolean {
  if (!blocked) return false;
  const labels = domain.toLowerCase().split('.');
  return labels.some((_, i) => blocked.has(labels.slice(i).join('.')));
}

/**
 * A partner's answer to a native zone, or why it is discarded: `no_markup` when it is not a Native
 * response filling the required assets with a title and an https image; `bad_landing` for its link
 * (readLink). Texts are kept as text (the widget inserts them as such), cut to the lengths we asked
 * for; `jstracker` and script event trackers (method 2) are dropped.
 */
export function readNativeAnswer(adm: string, blockedDomains: ReadonlySet<string> | null): AnswerRead<NativeAnswer> {
  const r = nativeResponse(adm);
  if (!r) return { ok: false, discard: 'no_markup' };
  const { n, byId } = r;
  const title = plain(obj(byId.get(ASSET.title)?.title).text, 90);
  const img = obj(byId.get(ASSET.image)?.img);
  const image = httpsUrl(str(img.url));
  if (!title || !image) return { ok: false, discard: 'no_markup' };
  const link = readLink(n, blockedDomains);
  if (!link) return { ok: false, discard: 'bad_landing' };
  const pixels = [
    ...arr(n.imptrackers).map(str),
    ...arr(n.eventtrackers)
      .map(obj)
      .filter((t) => t.event === 1 && t.method === 1)
      .map((t) => str(t.url)),
  ].flatMap((u) => httpsUrl(u) ?? []);
  const data = (id: number, len: number) => plain(obj(byId.get(id)?.data).value, len);
  return {
    ok: true,
    answer: {
      title,
      image,
      imageW: size(img.w),
      imageH: size(img.h),
      text: data(ASSET.text, 140),
      cta: data(ASSET.cta, 25),
      sponsored: data(ASSET.sponsored, 25),
      pixels: [...new Set(pixels)].slice(0, 5),
      ...link,
    },
  };
}

/**
 * A partner's answer to a push-shaped slot (a push notification, an in-page push zone), or why it is
 * discarded: `no_markup` without a title; `bad_icon` when an icon is given that is not a plain https
 * URL; `bad_landing` for its link (readLink).
 */
export function readPushAnswer(adm: string, blockedDomains: ReadonlySet<string> | null): AnswerRead<PushAnswer> {
  const r = nativeResponse(adm);
  if (!r) return { ok: false, discard: 'no_markup' };
  const { n, byId } = r;
  const title = plain(obj(byId.get(PUSH_ASSET.title)?.title).text, PUSH_LIMITS.title);
  if (!title) return { ok: false, discard: 'no_markup' };
  const rawIcon = str(obj(byId.get(PUSH_ASSET.icon)?.img).url);
  const icon = rawIcon === '' ? '' : httpsUrl(rawIcon);
  if (icon === undefined) return { ok: false, discard: 'bad_icon' };
  const link = readLink(n, blockedDomains);
  if (!link) return { ok: false, discard: 'bad_landing' };
  return {
    ok: true,
    answer: { title, text: plain(obj(byId.get(PUSH_ASSET.text)?.data).value, PUSH_LIMITS.text), icon, ...link },
  };
}
