import type { BrowserFamily, OsFamily } from '@adnet/schemas/api';
import type { DeviceType, StructuredUserAgent } from '@adnet/schemas/openrtb';
import { memoByString } from '@adnet/runtime/memo';
import Bowser from 'bowser';

/**
 * What a user agent says about the device: the type, OS and browser families campaigns target. A user
 * agent names `other` for an OS or browser outside the families; none at all leaves them undefined.
 */
export interface UserAgentFacts {
  /** undefined when the user agent names no desktop, phone or tablet (a TV, a console, an unknown string). */
  readonly device: DeviceType | undefined;
  readonly os: OsFamily | undefined;
  readonly browser: BrowserFamily | undefined;
}

// bowser's names (its OS_MAP and BROWSER_MAP values) to our families; every other name is `other`.
const OS_FAMILY: ReadonlyMap<string, OsFamily> = new Map([
  ['Android', 'android'],
  ['iOS', 'ios'],
  ['Windows', 'windows'],
  ['macOS', 'macos'],
  ['Linux', 'linux'],
  ['Chrome OS', 'chromeos'],
]);
const BROWSER_FAMILY: ReadonlyMap<string, BrowserFamily> = new Map([
  ['Chrome', 'chrome'],
  // Chrome's open-source build, without Google's branding.
  ['Chromium', 'chrome'],
  ['Safari', 'safari'],
  ['Firefox', 'firefox'],
  ['Microsoft Edge', 'edge'],
  ['Samsung Internet for Android', 'samsung'],
  ['Opera', 'opera'],
  ['Opera Coast', 'opera'],
]);
const DEVICE: ReadonlyMap<string, DeviceType> = new Map([
  ['desktop', 'desktop'],
  ['mobile', 'mobile'],
  ['tablet', 'tablet'],
]);
/** bowser names no platform for some desktop systems (Chrome OS): their OS says it. */
const DESKTOP_OS: ReadonlySet<OsFamily | undefined> = new Set(['windows', 'macos', 'linux', 'chromeos']);
const UNKNOWN: UserAgentFacts = Object.freeze({ device: undefined, os: undefined, browser: undefined });

/** User agents repeat heavily: bowser's parse costs ~13 us, a memo hit ~0.02 us. */
const parsed = memoByString((ua): UserAgentFacts => {
  const p = Bowser.getParser(ua);
  const os = OS_FAMILY.get(p.getOSName()) ?? 'other';
  const device = DEVICE.get(p.getPlatformType()) ?? (DESKTOP_OS.has(os) ? 'desktop' : undefined);
  return Object.freeze({ device, os, browser: BROWSER_FAMILY.get(p.getBrowserName()) ?? 'other' });
});

/** Device type, OS and browser family of a user agent, by the maintained `bowser` parser (MIT). */
export const userAgentFacts = (ua: string): UserAgentFacts => (ua === '' ? UNKNOWN : parsed(ua));

// OS names as partners (OpenRTB `device.os`) and Client Hints (`Sec-CH-UA-Platform`, quoted) spell them,
// reduced to lower-case letters and digits. A Map: a partner's "constructor" must find nothing.
const NAMED_OS: ReadonlyMap<string, OsFamily> = new Map([
  ['android', 'android'],
  ['ios', 'ios'],
  ['ipados', 'ios'],
  ['iphoneos', 'ios'],
  ['windows', 'windows'],
  ['macos', 'macos'],
  ['osx', 'macos'],
  ['macosx', 'macos'],
  ['linux', 'linux'],
  ['chromeos', 'chromeos'],
  ['chromiumos', 'chromeos'],
]);
const NOT_LETTERS = /[^a-z0-9]/g;

/** The OS family an OS name stands for (`iOS`, `"Chrome OS"`, `Mac OS X`, ...); undefined for a name of none of them. */
export const osFamilyOfName = (name: string): OsFamily | undefined =>
  NAMED_OS.get(name.toLowerCase().replace(NOT_LETTERS, ''));

/**
 * The user agent's facts corrected by the low-entropy Client Hints Chromium browsers send on every
 * secure request (`Sec-CH-UA-Platform`, `Sec-CH-UA-Mobile`; '' when absent): they are exact where the
 * user agent string is frozen or reduced. `Sec-CH-UA-Mobile: ?0` from a phone's user agent is a
 * tablet (Android and iOS) or a desktop-mode browser (anything else).
 */
export function withClientHints(facts: UserAgentFacts, platform: string, mobile: string): UserAgentFacts {
  if (platform === '' && mobile === '') return facts;
  const os = (platform && osFamilyOfName(platform)) || facts.os;
  let device = facts.device;
  if (mobile === '?1') device = 'mobile';
  else if (mobile === '?0' && device === 'mobile') device = os === 'android' || os === 'ios' ? 'tablet' : 'desktop';
  return os === facts.os && device === facts.device ? facts : { device, os, browser: facts.browser };
}

// Browser brands as User-Agent Client Hints (and so `device.sua.browsers`) name them, reduced like OS
// names. Chromium is every Chromium browser's brand too: a more specific one listed beside it wins.
const NAMED_BROWSER: ReadonlyMap<string, BrowserFamily> = new Map([
  ['googlechrome', 'chrome'],
  ['chrome', 'chrome'],
  ['microsoftedge', 'edge'],
  ['edge', 'edge'],
  ['opera', 'opera'],
  ['samsunginternet', 'samsung'],
  ['firefox', 'firefox'],
  ['mozillafirefox', 'firefox'],
  ['safari', 'safari'],
  ['mobilesafari', 'safari'],
]);
/** GREASE brands (`Not A;Brand`, `Not)A;Brand`, ...) that browsers add so no one parses by list position. */
const GREASE = /not.?a.?brand/i;

/** What OpenRTB 2.6 `device.sua` says, each fact undefined where it says nothing. */
export interface StructuredUserAgentFacts {
  readonly device: DeviceType | undefined;
  readonly os: OsFamily | undefined;
  readonly browser: BrowserFamily | undefined;
}
const NO_SUA: StructuredUserAgentFacts = Object.freeze({ device: undefined, os: undefined, browser: undefined });

/**
 * Device type, OS and browser family from a Structured User Agent: `platform.brand` names the OS,
 * `mobile` the device as the Client Hints do (1 a phone; 0 a tablet on Android or iOS, a desktop on a
 * desktop OS, unknown otherwise), `browsers[]` the browser (the first known brand, Chromium only when
 * it is the only one; an unknown real brand is `other`).
 */
export function structuredUserAgentFacts(sua: StructuredUserAgent | undefined): StructuredUserAgentFacts {
  if (!sua) return NO_SUA;
  const platform = sua.platform?.brand ?? '';
  const os = platform === '' ? undefined : (osFamilyOfName(platform) ?? 'other');
  let device: DeviceType | undefined;
  if (sua.mobile === 1) device = 'mobile';
  else if (sua.mobile === 0)
    device = os === 'android' || os === 'ios' ? 'tablet' : DESKTOP_OS.has(os) ? 'desktop' : undefined;
  let browser: BrowserFamily | undefined;
  for (const { brand } of sua.browsers ?? []) {
    if (GREASE.test(brand)) continue;
    const key = brand.toLowerCase().replace(NOT_LETTERS, '');
    if (key === 'chromium') browser ??= 'chrome';
    else {
      const named = NAMED_BROWSER.get(key);
      if (named) {
        browser = named;
        break;
      }
      browser ??= 'other';
    }
  }
  return device === undefined && os === undefined && browser === undefined ? NO_SUA : { device, os, browser };
}
