import type { SafeFetchOptions } from './safe-fetch.ts';
import { safeGet } from './safe-fetch.ts';

/** `<meta name="adnet-verification" content="<code>">` in the home page. */
export const META_NAME = 'adnet-verification';
/** Or a text file holding only the code. */
export const WELL_KNOWN_PATH = '/.well-known/adnet-verification.txt';
export const NOT_FOUND_MESSAGE = 'Verification code not found on the site page';

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

export type Verification = { ok: true; method: 'meta' | 'file' } | { ok: false; error: string };

/** https first, then http; the meta tag on the home page, then the well-known file. */
export async function verifySite(domain: string, code: string, o: SafeFetchOptions): Promise<Verification> {
  const reasons: string[] = [];
  for (const scheme of ['https', 'http'] as const) {
    const home = await safeGet(`${scheme}://${domain}/`, o);
    if (!home.ok) {
      reasons.push(`${scheme}: ${home.error}`);
      if (home.error.startsWith('refused')) break;
      continue;
    }
    if (home.status < 400 && metaCode(home.body).includes(code)) return { ok: true, method: 'meta' };
    const file = await safeGet(`${scheme}://${domain}${WELL_KNOWN_PATH}`, o);
    if (file.ok && file.status < 400 && file.body.trim() === code) return { ok: true, method: 'file' };
    return { ok: false, error: NOT_FOUND_MESSAGE };
  }
  return { ok: false, error: `The site could not be reached (${reasons.join('; ')})` };
}
