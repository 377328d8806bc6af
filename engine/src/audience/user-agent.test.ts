import { describe, expect, it } from 'vitest';
import { osFamilyOfName, structuredUserAgentFacts, userAgentFacts, withClientHints } from './user-agent.ts';

const UA = {
  windowsChrome:
    'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/125.0.0.0 Safari/537.36',
  windowsEdge:
    'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/125.0.0.0 Safari/537.36 Edg/125.0.2535.51',
  windowsOpera:
    'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/125.0.0.0 Safari/537.36 OPR/110.0.0.0',
  macSafari:
    'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Safari/605.1.15',
  iphoneSafari:
    'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1',
  iphoneChrome:
    'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) CriOS/125.0.6422.80 Mobile/15E148 Safari/604.1',
  ipad: 'Mozilla/5.0 (iPad; CPU OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1',
  pixel:
    'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/125.0 Mobile Safari/537.36',
  samsung:
    'Mozilla/5.0 (Linux; Android 13; SM-S918B) AppleWebKit/537.36 (KHTML, like Gecko) SamsungBrowser/24.0 Chrome/117.0.0.0 Mobile Safari/537.36',
  androidTablet:
    'Mozilla/5.0 (Linux; Android 13; SM-X700) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/125.0 Safari/537.36',
  linuxFirefox: 'Mozilla/5.0 (X11; Linux x86_64; rv:126.0) Gecko/20100101 Firefox/126.0',
  chromebook:
    'Mozilla/5.0 (X11; CrOS x86_64 14541.0.0) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/125.0.0.0 Safari/537.36',
  tizenTv:
    'Mozilla/5.0 (SMART-TV; Linux; Tizen 6.0) AppleWebKit/537.36 (KHTML, like Gecko) SamsungBrowser/4.0 Chrome/76.0.3809.146 TV Safari/537.36',
};

describe('device, OS and browser of a user agent', () => {
  it.each([
    ['windowsChrome', 'desktop', 'windows', 'chrome'],
    ['windowsEdge', 'desktop', 'windows', 'edge'],
    ['windowsOpera', 'desktop', 'windows', 'opera'],
    ['macSafari', 'desktop', 'macos', 'safari'],
    ['iphoneSafari', 'mobile', 'ios', 'safari'],
    ['iphoneChrome', 'mobile', 'ios', 'chrome'],
    ['ipad', 'tablet', 'ios', 'safari'],
    ['pixel', 'mobile', 'android', 'chrome'],
    ['samsung', 'mobile', 'android', 'samsung'],
    ['androidTablet', 'tablet', 'android', 'chrome'],
    ['linuxFirefox', 'desktop', 'linux', 'firefox'],
    ['chromebook', 'desktop', 'chromeos', 'chrome'],
  ] as const)('%s: %s, %s, %s', (name, device, os, browser) => {
    expect(userAgentFacts(UA[name])).toEqual({ device, os, browser });
  });

  it('names `other` for systems and browsers outside the families, and no device for a TV', () => {
    expect(userAgentFacts(UA.tizenTv)).toEqual({ device: undefined, os: 'other', browser: 'samsung' });
    expect(userAgentFacts('something made up')).toEqual({ device: undefined, os: 'other', browser: 'other' });
  });

  it('knows nothing of an absent user agent', () => {
    expect(userAgentFacts('')).toEqual({ device: undefined, os: undefined, browser: undefined });
  });

  it('parses a user agent once and answers the same object after', () => {
    expect(userAgentFacts(UA.pixel)).toBe(userAgentFacts(UA.pixel));
  });
});

describe('Client Hints', () => {
  const reduced =
    'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/125.0.0.0 Safari/537.36';
  it('take the platform and mobility from Sec-CH-UA-Platform and Sec-CH-UA-Mobile when sent', () => {
    expect(withClientHints(userAgentFacts(reduced), '"Chrome OS"', '?0')).toEqual({
      device: 'desktop',
      os: 'chromeos',
      browser: 'chrome',
    });
    expect(withClientHints(userAgentFacts(reduced), '"Android"', '?1')).toEqual({
      device: 'mobile',
      os: 'android',
      browser: 'chrome',
    });
  });

  it('make a phone user agent that says it is not mobile a tablet, or on a desktop system a desktop', () => {
    expect(withClientHints(userAgentFacts(UA.pixel), '"Android"', '?0').device).toBe('tablet');
    expect(withClientHints(userAgentFacts(UA.pixel), '"Windows"', '?0')).toEqual({
      device: 'desktop',
      os: 'windows',
      browser: 'chrome',
    });
  });

  it('leave the user agent alone when absent or unknown', () => {
    const facts = userAgentFacts(UA.windowsChrome);
    expect(withClientHints(facts, '', '')).toBe(facts);
    expect(withClientHints(facts, '"Unknown"', '?0')).toBe(facts);
  });
});

describe('OS names as partners and hints spell them', () => {
  it.each([
    ['iOS', 'ios'],
    ['iPadOS', 'ios'],
    ['Android', 'android'],
    ['Windows', 'windows'],
    ['Mac OS X', 'macos'],
    ['OS X', 'macos'],
    ['macOS', 'macos'],
    ['Linux', 'linux'],
    ['Chrome OS', 'chromeos'],
    ['"Chromium OS"', 'chromeos'],
  ])('%s is %s', (name, family) => expect(osFamilyOfName(name)).toBe(family));

  it('names none of the families for other names, inherited object keys included', () => {
    for (const name of ['Tizen', 'Windows Phone', 'constructor', '__proto__', 'toString', ''])
      expect(osFamilyOfName(name), name).toBeUndefined();
  });
});

describe('OpenRTB 2.6 structured user agent (device.sua)', () => {
  const grease = { brand: 'Not A;Brand', version: ['99'] };
  it('names the OS from the platform, the device from `mobile`, the browser from the first known brand', () => {
    expect(
      structuredUserAgentFacts({
        browsers: [grease, { brand: 'Chromium', version: ['125'] }, { brand: 'Microsoft Edge', version: ['125'] }],
        platform: { brand: 'Windows', version: ['15', '0', '0'] },
        mobile: 0,
      }),
    ).toEqual({ device: 'desktop', os: 'windows', browser: 'edge' });
    expect(
      structuredUserAgentFacts({
        browsers: [{ brand: 'Google Chrome' }, grease],
        platform: { brand: 'Android' },
        mobile: 1,
      }),
    ).toEqual({
      device: 'mobile',
      os: 'android',
      browser: 'chrome',
    });
    // Not mobile on a phone system: a tablet.
    expect(structuredUserAgentFacts({ platform: { brand: 'iOS' }, mobile: 0 }).device).toBe('tablet');
  });

  it('takes Chromium alone as Chrome, an unknown real brand as other, and says nothing it was not told', () => {
    expect(structuredUserAgentFacts({ browsers: [grease, { brand: 'Chromium' }] }).browser).toBe('chrome');
    expect(structuredUserAgentFacts({ browsers: [{ brand: 'Brave' }, { brand: 'Chromium' }] }).browser).toBe('other');
    expect(structuredUserAgentFacts({ platform: { brand: 'PlayStation' }, mobile: 0 })).toEqual({
      device: undefined,
      os: 'other',
      browser: undefined,
    });
    expect(structuredUserAgentFacts({ browsers: [grease] })).toEqual({
      device: undefined,
      os: undefined,
      browser: undefined,
    });
    expect(structuredUserAgentFacts(undefined)).toEqual({ device: undefined, os: undefined, browser: undefined });
  });
});
