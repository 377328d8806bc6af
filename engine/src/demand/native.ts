import { isSafeHttpUrl } from '@adnet/schemas/url';
import { esc } from '../openrtb/ad-markup.ts';

/** Asset ids of the native request we send, and what the answer's assets are matched by. */
const ASSET = { title: 1, image: 2, text: 3, cta: 4 } as const;

/**
 * The OpenRTB Native 1.2 request for one of our native zones (`imp.native.request`, a JSON string): a
 * content-feed ad (context 1, in-feed placement 1) with a required title (90 characters) and main image
 * (at least 300x157, ~1.91:1), an optional description and call to action. The same text for every
 * impression, built once.
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
  ],
  eventtrackers: [{ event: 1, methods: [1] }],
});

interface NativeAnswer {
  title: string;
  image: string;
  text: string;
  cta: string;
  link: string;
  /** Impression pixels the partner asked for (`imptrackers`, and image `eventtrackers` of impressions). */
  pixels: string[];
}

const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const obj = (v: unknown): Record<string, unknown> => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {});
const safeUrl = (u: string): string => (u.length <= 2048 && isSafeHttpUrl(u) ? u : '');

/**
 * A partner's native answer (`adm`: a Native 1.2 response, bare or as `{native: ...}` as 1.0/1.1 wrote
 * it), or undefined when it does not fill the required assets with a title, an http(s) image and an
 * http(s) link: such a bid is discarded (`no_markup`).
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
  const image = safeUrl(str(obj(byId.get(ASSET.image)?.img).url));
  const link = safeUrl(str(obj(n.link).url));
  if (!title || !image || !link) return undefined;
  const pixels = [
    ...arr(n.imptrackers).map(str),
    ...arr(n.eventtrackers)
      .map(obj)
      .filter((t) => t.event === 1 && t.method === 1)
      .map((t) => str(t.url)),
  ]
    .map(safeUrl)
    .filter(Boolean)
    .slice(0, 5);
  return {
    title,
    image,
    text: str(obj(byId.get(ASSET.text)?.data).value).slice(0, 140),
    cta: str(obj(byId.get(ASSET.cta)?.data).value).slice(0, 25),
    link,
    pixels,
  };
}

/**
 * The partner's native ad as HTML for the widget's sandboxed iframe (as a partner's banner): every text
 * escaped, every URL checked, so the partner's JSON cannot put markup of its own on the page.
 */
export function nativeHtml(a: NativeAnswer): string {
  const cta = a.cta ? `<span class="cta">${esc(a.cta)}</span>` : '';
  const text = a.text ? `<p>${esc(a.text)}</p>` : '';
  const pixels = a.pixels.map((p) => `<img src="${esc(p)}" width="1" height="1" alt="" style="position:absolute;left:-9999px">`).join('');
  return (
    '<style>body{margin:0;font:14px/1.4 system-ui,sans-serif}a{display:block;color:inherit;text-decoration:none}img.main{width:100%;height:auto;display:block}' +
    'b{display:block;margin:6px 0 2px}p{margin:0 0 6px;color:#555}.cta{display:inline-block;padding:4px 10px;border-radius:4px;background:#1d4ed8;color:#fff}</style>' +
    `<a href="${esc(a.link)}" target="_blank" rel="noopener"><img class="main" src="${esc(a.image)}" alt=""><b>${esc(a.title)}</b>${text}${cta}</a>${pixels}`
  );
}
