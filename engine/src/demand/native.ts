import { checkHttpUrl, isSafeHttpUrl } from '@adnet/schemas/url';
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

/** Asset ids of the push request. */
const PUSH_ASSET = { title: 1, icon: 2, text: 3 } as const;
/** What a notification of ours carries at most: the push creative's limits (admin's creative rules). */
export const PUSH_LIMITS = { title: 50, text: 120, url: 2048 } as const;

/**
 * The Native 1.2 request for a push slot: a notification outside any page (context 1, placement 3:
 * outside the core content; `ext.format: "push"` says which), a required title (50 characters, as our
 * push creatives), an optional text (data type 2, 120) and icon (image type 1, at least 64x64). The
 * answer's `link.url` is the landing our click link redirects to. Built once.
 */
export const NATIVE_PUSH_REQUEST = JSON.stringify({
  ver: '1.2',
  context: 1,
  plcmttype: 3,
  plcmtcnt: 1,
  assets: [
    { id: PUSH_ASSET.title, required: 1, title: { len: PUSH_LIMITS.title } },
    { id: PUSH_ASSET.icon, required: 0, img: { type: 1, wmin: 64, hmin: 64 } },
    { id: PUSH_ASSET.text, required: 0, data: { type: 2, len: PUSH_LIMITS.text } },
  ],
  ext: { format: 'push' },
});

/** A partner's notification, checked: plain texts within our limits, an https icon (or none), a landing URL. */
export interface PushAnswer {
  title: string;
  text: string;
  /** '' when the partner sent none. */
  icon: string;
  landing: string;
}

// eslint-disable-next-line no-control-regex -- stripping control characters is the point
const CONTROL = /[\u0000-\u001F\u007F-\u009F\u2028\u2029]+/g;
/** A text the OS shows as it is: control characters and line separators become a space, the length is bounded. */
const plain = (v: unknown, max: number): string => str(v).replace(CONTROL, ' ').trim().slice(0, max).trim();

/**
 * A partner's answer to a push slot (`adm`: a Native 1.2 response, bare or as `{native: ...}`), or why
 * it is discarded: `no_markup` without a title; `bad_icon` when an icon is given that is not a plain
 * https URL; `bad_landing` when `link.url` is not what a campaign's `landing_url` may be (the API's URL
 * rule: absolute http(s), no control characters, no `]]>`, at most 2048 characters, normalised) or its
 * host, or a parent of it, is in `blockedDomains` (the publisher's block list).
 */
export function readPushAnswer(
  adm: string,
  blockedDomains: ReadonlySet<string> | null,
): { ok: true; answer: PushAnswer } | { ok: false; discard: 'no_markup' | 'bad_icon' | 'bad_landing' } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(adm);
  } catch {
    return { ok: false, discard: 'no_markup' };
  }
  const root = obj(parsed);
  const n = root.native === undefined ? root : obj(root.native);
  const byId = new Map(arr(n.assets).map((a) => [obj(a).id, obj(a)]));
  const title = plain(obj(byId.get(PUSH_ASSET.title)?.title).text, PUSH_LIMITS.title);
  if (!title) return { ok: false, discard: 'no_markup' };
  const rawIcon = str(obj(byId.get(PUSH_ASSET.icon)?.img).url);
  const icon = rawIcon === '' ? '' : checkedUrl(rawIcon, true);
  if (icon === undefined) return { ok: false, discard: 'bad_icon' };
  const landing = checkedUrl(str(obj(n.link).url), false);
  if (landing === undefined || blockedHost(landing, blockedDomains)) return { ok: false, discard: 'bad_landing' };
  return { ok: true, answer: { title, text: plain(obj(byId.get(PUSH_ASSET.text)?.data).value, PUSH_LIMITS.text), icon, landing } };
}

/** The URL as the API would store it (checkHttpUrl), when it passes, is printable ASCII and fits; else undefined. */
function checkedUrl(raw: string, httpsOnly: boolean): string | undefined {
  if (raw.length > PUSH_LIMITS.url) return undefined;
  const c = checkHttpUrl(raw, { httpsOnly });
  return c.ok && c.href.length <= PUSH_LIMITS.url && isSafeHttpUrl(c.href) ? c.href : undefined;
}

/** The landing's host or a parent of it is blocked, matched as a campaign's landing domain is (index/candidate.ts). */
function blockedHost(url: string, blocked: ReadonlySet<string> | null): boolean {
  if (!blocked) return false;
  const labels = new URL(url).hostname.split('.');
  return labels.some((_, i) => blocked.has(labels.slice(i).join('.')));
}
