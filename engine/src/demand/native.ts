import { isSafeHttpUrl } from '@adnet/schemas/url';

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

export interface NativeAnswer {
  title: string;
  /** The main image, https. */
  image: string;
  /** Its size when the partner gave one (1-4000 pixels), else undefined. */
  imageW: number | undefined;
  imageH: number | undefined;
  text: string;
  cta: string;
  sponsored: string;
  /** The partner's landing (http(s)): our click redirect's target. */
  link: string;
  /** Impression pixels the partner asked for (`imptrackers`, and image `eventtrackers` of impressions), https, at most five. */
  pixels: string[];
  /** The partner's `link.clicktrackers` (http(s), at most three): called by us once on a valid click. */
  clicktrackers: string[];
}

const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const obj = (v: unknown): Record<string, unknown> => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {});
const safeUrl = (u: string): string => (u.length <= 2048 && isSafeHttpUrl(u) ? u : '');
// What the publisher's page loads (image, pixels) must be https: an http one is mixed content there.
const httpsUrl = (u: string): string => (/^https:/i.test(u) ? safeUrl(u) : '');
const size = (v: unknown): number | undefined => (typeof v === 'number' && Number.isInteger(v) && v > 0 && v <= 4000 ? v : undefined);

/**
 * A partner's native answer (`adm`: a Native 1.2 response, bare or as `{native: ...}` as 1.0/1.1 wrote
 * it), or undefined when it does not fill the required assets with a title, an https image and an
 * http(s) link: such a bid is discarded (`no_markup`). Texts are kept as text (the widget inserts them
 * as such), cut to the lengths we asked for; `jstracker` and script event trackers (method 2) are dropped.
 */
export function readNativeAnswer(adm: string): NativeAnswer | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(adm);
  } catch {
    return undefined;
  }
  const root = obj(parsed);
  const n = root.native === undefined ? root : obj(root.native);
  const byId = new Map(arr(n.assets).map((a) => [obj(a).id, obj(a)]));
  const title = str(obj(byId.get(ASSET.title)?.title).text).slice(0, 90);
  const img = obj(byId.get(ASSET.image)?.img);
  const image = httpsUrl(str(img.url));
  const link = safeUrl(str(obj(n.link).url));
  if (!title || !image || !link) return undefined;
  const pixels = [
    ...arr(n.imptrackers).map(str),
    ...arr(n.eventtrackers)
      .map(obj)
      .filter((t) => t.event === 1 && t.method === 1)
      .map((t) => str(t.url)),
  ]
    .map(httpsUrl)
    .filter(Boolean);
  const data = (id: number, len: number) => str(obj(byId.get(id)?.data).value).slice(0, len);
  return {
    title,
    image,
    imageW: size(img.w),
    imageH: size(img.h),
    text: data(ASSET.text, 140),
    cta: data(ASSET.cta, 25),
    sponsored: data(ASSET.sponsored, 25),
    link,
    pixels: [...new Set(pixels)].slice(0, 5),
    clicktrackers: [...new Set(arr(obj(n.link).clicktrackers).map(str).map(safeUrl).filter(Boolean))].slice(0, 3),
  };
}
