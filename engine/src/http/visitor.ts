import { VISITOR_COOKIE } from '@adnet/schemas/audiences';
import { COUNTRY_CODES } from '@adnet/schemas/geo';
import type { Visitor } from '../auction/request-context.ts';
import { countryOfAddress } from '../audience/geo.ts';
import { userAgentFacts, withClientHints } from '../audience/user-agent.ts';
import { isBotUserAgent } from '../fraud/bot-user-agent.ts';
import { pageHostOf } from '../fraud/page-origin.ts';
import { ipPrefixOf, uaHashOf } from '../tracking/viewer.ts';
import type { EngineRequest } from './adapt.ts';

// What a browser's request says about the visitor.

/** The headers `visitorOf` reads: routes ask the adapter for exactly these. */
export const VISITOR_HEADERS = [
  'x-country',
  'cf-ipcountry',
  'accept-language',
  'user-agent',
  'sec-ch-ua-platform',
  'sec-ch-ua-mobile',
  'origin',
  'referer',
] as const;

/**
 * Country: the CDN's or load balancer's `X-Country` / `CF-IPCountry` when the request came through a
 * trusted proxy (a visitor's own header is never believed), else the client address in the embedded
 * database. Language from Accept-Language; device type, OS and browser from the user agent and its
 * Client Hints; the page from Origin or Referer.
 */
export function visitorOf(req: Pick<EngineRequest, 'headers' | 'ip' | 'viaProxy'>): Visitor {
  const h = req.headers;
  const lang = (h['accept-language'] ?? '').trim().slice(0, 2).toLowerCase();
  const ua = h['user-agent'] ?? '';
  const facts = withClientHints(userAgentFacts(ua), h['sec-ch-ua-platform'] ?? '', h['sec-ch-ua-mobile'] ?? '');
  return {
    country: (req.viaProxy ? proxyCountry(h) : undefined) ?? countryOfAddress(req.ip),
    language: /^[a-z]{2}$/.test(lang) ? lang : undefined,
    device: facts.device,
    os: facts.os,
    browser: facts.browser,
    ipPrefix: ipPrefixOf(req.ip),
    uaHash: uaHashOf(ua),
    bot: isBotUserAgent(ua),
    pageHost: pageHostOf(h.origin, h.referer),
  };
}

/** A proxy's country header, when it names a country (Cloudflare says `XX` for unknown and `T1` for Tor: no country). */
function proxyCountry(h: Record<string, string>): string | undefined {
  const cc = (h['x-country'] || h['cf-ipcountry'] || '').trim().toLowerCase();
  return COUNTRY_CODES.has(cc) ? cc : undefined;
}

const COOKIE_ID = new RegExp(`(?:^|;\\s*)${VISITOR_COOKIE}=([A-Za-z0-9_-]{22})(?:;|$)`);
/** Our cookie's id of the browser (set by the audience pixel, docs/audiences.md), as the viewer id pixel audiences know; undefined without one. */
export function visitorCookieId(cookie: string | undefined): string | undefined {
  if (!cookie) return undefined;
  const m = COOKIE_ID.exec(cookie);
  return m ? `c:${m[1] as string}` : undefined;
}
