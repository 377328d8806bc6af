import type { Creative } from '@adnet/schemas/api';
import { nativeAssetsFor } from './native-request.ts';
import type { NativeAsset } from './native-request.ts';
import { inertJson } from '@adnet/schemas/inert-json';
import { isSafeHttpUrl } from '@adnet/schemas/url';

// Everything a creative brings is untrusted, even after the API's checks: a value stored before those
// checks existed must still come out inert. Text is entity-escaped, URLs go through isSafeHttpUrl (or
// are left out), CDATA sections are split at "]]>", and characters XML 1.0 cannot carry are dropped
// so every document stays well-formed.

/** Characters XML 1.0 forbids (C0 controls but tab, LF and CR; U+FFFE/U+FFFF; unpaired surrogates). */
const NOT_XML =
  // eslint-disable-next-line no-control-regex -- these are the characters to drop
  /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
// One cheap test first: most values (our own links, ordinary titles) have nothing to change.
// eslint-disable-next-line no-control-regex -- see NOT_XML
const MAYBE_TEXT = /[&<>"'\u0000-\u0008\u000B\u000C\u000E-\u001F\uD800-\uDFFF\uFFFE\uFFFF]/;
// eslint-disable-next-line no-control-regex -- see NOT_XML
const MAYBE_CDATA = /\]\]>|[\u0000-\u0008\u000B\u000C\u000E-\u001F\uD800-\uDFFF\uFFFE\uFFFF]/;
const SPECIAL = /[&<>"']/g;
const ENTITY: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Text or an attribute value for HTML and XML alike. */
export const esc = (s: string): string =>
  MAYBE_TEXT.test(s) ? s.replace(NOT_XML, '').replace(SPECIAL, (c) => ENTITY[c] as string) : s;

/** A CDATA section that cannot be closed early: each "]]>" is split across two sections. */
export const cdata = (s: string): string =>
  `<![CDATA[${MAYBE_CDATA.test(s) ? s.replace(NOT_XML, '').replaceAll(']]>', ']]]]><![CDATA[>') : s}]]>`;

/** A creative's URL, or nothing when it is not a plain http(s) URL. */
export const url = (u: string | null): string => (u && isSafeHttpUrl(u) ? u : '');

export interface MarkupLinks {
  /** Click tracking: `/c/<impression id>/<tracking token>`, which redirects to the landing URL. */
  clickUrl: string;
  /** VAST impression pixel. */
  impressionUrl: string;
  /** VAST `/t/vast/<event>/<ticket>` base: `<event>` is replaced per tracking event (video only). */
  trackingUrl?: (event: string) => string;
}

/** Banner markup: a linked image. */
export function bannerAdm(c: Creative, links: MarkupLinks): string {
  const alt = esc(c.title ?? '');
  return `<a href="${esc(links.clickUrl)}" target="_blank" rel="noopener"><img src="${esc(url(c.image_url))}" width="${c.image_width ?? 0}" height="${c.image_height ?? 0}" alt="${alt}" style="border:0"></a>`;
}

/** OpenRTB Native 1.2 response: title (asset 1), image (2), body (3), call to action (4). */
export function nativeAdm(c: Creative, links: MarkupLinks, requested?: readonly NativeAsset[]): string {
  if (requested)
    return inertJson({
      native: {
        ver: '1.2',
        assets: nativeAssetsFor(c, requested),
        link: { url: links.clickUrl },
        imptrackers: [links.impressionUrl],
      },
    });
  const assets: unknown[] = [{ id: 1, title: { text: c.title ?? '' } }];
  if (url(c.image_url)) assets.push({ id: 2, img: { url: c.image_url, w: c.image_width, h: c.image_height } });
  if (c.body) assets.push({ id: 3, data: { value: c.body } });
  if (c.cta_text) assets.push({ id: 4, data: { value: c.cta_text } });
  return inertJson({
    native: { ver: '1.2', assets, link: { url: links.clickUrl }, imptrackers: [links.impressionUrl] },
  });
}

// At module level: a named closure made per call costs a `name` definition under tsx (bench/results/ab-history.md, step 6).
const two = (n: number): string => String(n).padStart(2, '0');
/** VAST's `HH:MM:SS` for a whole number of seconds. */
export function vastDuration(seconds: number): string {
  return `${two(Math.floor(seconds / 3600))}:${two(Math.floor(seconds / 60) % 60)}:${two(seconds % 60)}`;
}

/** The IAB VAST 4.0 namespace: without it a 4.0 document does not validate against the schema (2.0 and 3.0 have none). */
export const VAST_NS = 'http://www.iab.com/VAST';
