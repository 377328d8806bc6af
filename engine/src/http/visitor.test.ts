import { describe, expect, it } from 'vitest';
import { VISITOR_HEADERS, visitorOf } from './visitor.ts';

const PIXEL =
  'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/125.0 Mobile Safari/537.36';
/** The headers as the adapter hands them over: every asked-for name, '' when the request lacks it. */
const headers = (given: Record<string, string>): Record<string, string> => ({
  ...Object.fromEntries(VISITOR_HEADERS.map((h) => [h, ''])),
  ...given,
});

describe('visitor of a browser request', () => {
  it("takes the country from the client address, ignoring a visitor's own country header", () => {
    const v = visitorOf({
      headers: headers({ 'x-country': 'FR', 'cf-ipcountry': 'FR', 'user-agent': PIXEL }),
      ip: '8.8.8.8',
      viaProxy: false,
    });
    expect(v.country).toBe('us');
  });

  it("believes a trusted proxy's country header, and the address when the header names no country", () => {
    expect(visitorOf({ headers: headers({ 'cf-ipcountry': 'FR' }), ip: '8.8.8.8', viaProxy: true }).country).toBe('fr');
    expect(
      visitorOf({ headers: headers({ 'x-country': 'de', 'cf-ipcountry': 'FR' }), ip: '8.8.8.8', viaProxy: true })
        .country,
    ).toBe('de');
    // Cloudflare's `XX` (unknown) and `T1` (Tor) are no countries.
    expect(visitorOf({ headers: headers({ 'cf-ipcountry': 'T1' }), ip: '8.8.8.8', viaProxy: true }).country).toBe('us');
    expect(
      visitorOf({ headers: headers({ 'cf-ipcountry': 'XX' }), ip: '127.0.0.1', viaProxy: true }).country,
    ).toBeUndefined();
  });

  it('reads device, OS and browser from the user agent and its Client Hints', () => {
    const phone = visitorOf({
      headers: headers({ 'user-agent': PIXEL, 'accept-language': 'de-DE,de;q=0.9' }),
      ip: '127.0.0.1',
      viaProxy: false,
    });
    expect(phone).toMatchObject({ device: 'mobile', os: 'android', browser: 'chrome', language: 'de', bot: false });
    const hinted = visitorOf({
      headers: headers({ 'user-agent': PIXEL, 'sec-ch-ua-mobile': '?0', 'sec-ch-ua-platform': '"Android"' }),
      ip: '',
      viaProxy: false,
    });
    expect(hinted.device).toBe('tablet');
  });

  it('knows no device, OS or browser without a user agent (and calls it a bot)', () => {
    expect(visitorOf({ headers: headers({}), ip: '127.0.0.1', viaProxy: false })).toMatchObject({
      device: undefined,
      os: undefined,
      browser: undefined,
      bot: true,
    });
  });
});
