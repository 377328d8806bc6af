// URL hygiene shared by every door that takes a URL and every writer that embeds one. This module
// imports nothing (no zod): the widget bundles it into host pages, where zod's generated code would
// trip a strict Content-Security-Policy. The zod field built on it is `httpUrlSchema` in api.ts.

/**
 * What no URL we keep or write may carry: C0 and C1 control characters (CR, LF, NUL, tab among them),
 * DEL, and the Unicode line and paragraph separators. Any of them can end a header line, break out of
 * a JavaScript string or make an XML document ill-formed.
 */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const FORBIDDEN = /[\u0000-\u001F\u007F-\u009F\u2028\u2029]/;
/** A `{name}` macro as landing and postback URL patterns use them. */
const MACRO = /\{([^{}]*)\}/g;

export type UrlCheck = { ok: true; href: string } | { ok: false; message: string };

export interface UrlRules {
  /** Only https (push service endpoints). */
  httpsOnly?: boolean;
  /** Keep `{name}` macros as typed instead of percent-encoding their braces (landing and postback patterns). */
  macros?: boolean;
}

/**
 * Checks a URL typed by a client and returns it normalised (`URL.href`: IDN to punycode, spaces,
 * quotes and angle brackets percent-encoded). Refused: control characters and line separators
 * anywhere, `]]>` (it would end a CDATA section), and any scheme but http(s).
 */
export function checkHttpUrl(raw: string, rules: UrlRules = {}): UrlCheck {
  if (FORBIDDEN.test(raw)) return { ok: false, message: 'must not contain control characters or line breaks' };
  if (raw.includes(']]>')) return { ok: false, message: 'must not contain "]]>"' };
  const text = raw.trim();
  const names: string[] = [];
  // Macros are swapped for markers the URL parser leaves alone (lowercase letters and digits, as a
  // host would become) and put back afterwards, so `{click_id}` survives normalisation in a path.
  const marker = (i: number) => `adnetmacro${i}x`;
  const masked =
    rules.macros && !text.includes('adnetmacro')
      ? text.replace(MACRO, (_m, name: string) => marker(names.push(name) - 1))
      : text;
  let url: URL;
  try {
    url = new URL(masked);
  } catch {
    return { ok: false, message: 'must be an absolute http(s) URL' };
  }
  const allowed = rules.httpsOnly ? url.protocol === 'https:' : url.protocol === 'http:' || url.protocol === 'https:';
  if (!allowed || !url.hostname)
    return { ok: false, message: rules.httpsOnly ? 'must be an https URL' : 'must be an absolute http(s) URL' };
  let href = url.href;
  for (let i = 0; i < names.length; i++) {
    if (!href.includes(marker(i))) return { ok: false, message: 'must be an absolute http(s) URL' };
    href = href.replace(marker(i), `{${names[i]}}`);
  }
  return { ok: true, href };
}

/** Printable ASCII only after an http(s) scheme: what a normalised URL is made of. */
const SAFE_HTTP_URL = /^https?:\/\/[\x21-\x7E]+$/i;

/**
 * The last guard before a URL is written into markup or a header, for values stored before the
 * check above existed: true when it is http(s) and printable ASCII without `]]>`. One regex test,
 * cheap enough for the hot paths.
 */
export function isSafeHttpUrl(url: string): boolean {
  return SAFE_HTTP_URL.test(url) && !url.includes(']]>');
}
