import type { Visitor } from '../auction/request-context.ts';
import { isBotUserAgent } from '../fraud/bot-user-agent.ts';
import { ipPrefixOf, uaHashOf } from '../tracking/viewer.ts';

// What a browser's headers say about the visitor. No GeoIP database yet: the
// country comes from the load balancer's or CDN's header.

const TABLET = /iPad|Tablet|Nexus (7|9|10)|SM-T\d|Kindle|Silk/i;
const MOBILE = /Mobi|Android|iPhone|iPod|Windows Phone/i;

/** The headers `visitorOf` reads: routes ask the adapter for exactly these. */
export const VISITOR_HEADERS = ['x-country', 'cf-ipcountry', 'accept-language', 'user-agent'] as const;

/**
 * Country from `X-Country` or `CF-IPCountry` (ISO alpha-2); language from
 * Accept-Language; device type from the user agent.
 */
export function visitorOf(headers: Record<string, string>, ip: string): Visitor {
  const cc = (headers['x-country'] || headers['cf-ipcountry'] || '').trim().toLowerCase();
  const lang = (headers['accept-language'] ?? '').trim().slice(0, 2).toLowerCase();
  const ua = headers['user-agent'] ?? '';
  return {
    country: /^[a-z]{2}$/.test(cc) ? cc : undefined,
    language: /^[a-z]{2}$/.test(lang) ? lang : undefined,
    device: TABLET.test(ua) ? 'tablet' : MOBILE.test(ua) ? 'mobile' : 'desktop',
    ipPrefix: ipPrefixOf(ip),
    uaHash: uaHashOf(ua),
    bot: isBotUserAgent(ua),
  };
}

/** Operating system family for postback macros ({os}). */
export function osOf(ua: string): string {
  if (/Windows/i.test(ua)) return 'windows';
  if (/iPhone|iPad|iPod/i.test(ua)) return 'ios';
  if (/Android/i.test(ua)) return 'android';
  if (/Mac OS X|Macintosh/i.test(ua)) return 'macos';
  if (/Linux|X11/i.test(ua)) return 'linux';
  return 'other';
}

/** Browser family for postback macros ({browser}). */
export function browserOf(ua: string): string {
  if (/Edg\//.test(ua)) return 'edge';
  if (/OPR\/|Opera/.test(ua)) return 'opera';
  if (/Firefox\//.test(ua)) return 'firefox';
  if (/Chrome\//.test(ua)) return 'chrome';
  if (/Safari\//.test(ua)) return 'safari';
  return 'other';
}
