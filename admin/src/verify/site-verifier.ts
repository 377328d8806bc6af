import type { FetchFailure, SafeFetchOptions } from './safe-fetch.ts';
import { safeGet } from './safe-fetch.ts';

/** `<meta name="adnet-verification" content="<code>">` in the home page. */
export const META_NAME = 'adnet-verification';
/** Or a text file holding only the code. */
export const WELL_KNOWN_PATH = '/.well-known/adnet-verification.txt';
export const NOT_FOUND_MESSAGE = 'Verification code not found on the site page';
/** The one message a publisher gets for every way the site could not be fetched; the reason goes to the log. */
export const UNREACHABLE_MESSAGE = 'The site could not be reached';

/** The content of our meta tag, whatever the attribute order or quoting. */
export function metaCode(html: string): string[] {
  const codes: string[] = [];
  for (const tag of html.match(/<meta\b[^>]*>/gi) ?? []) {
    const attr = (name: string) => new RegExp(`\\b${name}\\s*=\\s*(?:"([^"]*)"|'([^']*)'|([^\\s>]+))`, 'i').exec(tag);
    const name = attr('name');
    if ((name?.[1] ?? name?.[2] ?? name?.[3] ?? '').toLowerCase() !== META_NAME) continue;
    const content = attr('content');
    codes.push((content?.[1] ?? content?.[2] ?? content?.[3] ?? '').trim());
  }
  return codes;
}

export type Verification =
  | { ok: true; method: 'meta' | 'file' }
  /** `error` is what the publisher is told; `reason` and `detail` (addresses and all) are for the log. */
  | { ok: false; error: string; reason?: FetchFailure; detail?: string };

/**
 * What verification may fetch: the site's own domain or its `www.`, on the port of the scheme, and
 * so only a page the site itself serves proves it; a redirect anywhere else ends the attempt.
 */
export function onSite(domain: string, o: Pick<SafeFetchOptions, 'httpPort' | 'httpsPort'>): (url: URL) => boolean {
  const hosts = new Set([domain, `www.${domain}`]);
  return (url) => {
    const port = url.protocol === 'https:' ? (o.httpsPort ?? 443) : (o.httpPort ?? 80);
    return hosts.has(url.hostname.replace(/\.$/, '')) && (url.port === '' || Number(url.port) === port);
  };
}

/** https first, then http; the meta tag on the home page, then the well-known file. */
export async function verifySite(domain: string, code: string, o: SafeFetchOptions): Promise<Verification> {
  const fetchOptions = { ...o, allowUrl: onSite(domain, o) };
  const failures: { reason: FetchFailure; detail: string }[] = [];
  for (const scheme of ['https', 'http'] as const) {
    const home = await safeGet(`${scheme}://${domain}/`, fetchOptions);
    if (!home.ok) {
      failures.push({ reason: home.reason, detail: `${scheme}: ${home.detail}` });
      // The name itself is refused: plain http would reach the same addresses.
      if (home.reason === 'refused_address') break;
      continue;
    }
    if (home.status < 400 && metaCode(home.body).includes(code)) return { ok: true, method: 'meta' };
    const file = await safeGet(`${scheme}://${domain}${WELL_KNOWN_PATH}`, fetchOptions);
    if (file.ok && file.status < 400 && file.body.trim() === code) return { ok: true, method: 'file' };
    return {
      ok: false,
      error: NOT_FOUND_MESSAGE,
      ...(file.ok ? {} : { reason: file.reason, detail: `${scheme}: ${file.detail}` }),
    };
  }
  return {
    ok: false,
    error: UNREACHABLE_MESSAGE,
    reason: failures.at(-1)?.reason,
    detail: failures.map((f) => f.detail).join('; '),
  };
}
