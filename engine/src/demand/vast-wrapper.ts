import { isSafeHttpUrl } from '@adnet/schemas/url';
import type { VastVersion } from '@adnet/schemas/vast';
import { cdata } from '../openrtb/ad-markup.ts';
import { impressionTag, vastRoot } from '../openrtb/vast-trackers.ts';

/** Where the player fetches a partner's VAST: its `adm` when that is a URL, else our copy of its markup (`/openrtb/adm/<token>`). */
export const partnerVastUri = (baseUrl: string, token: string, adm: string): string => {
  const trimmed = adm.trim();
  return isSafeHttpUrl(trimmed) ? trimmed : `${baseUrl}/openrtb/adm/${token}`;
};

const VERSION_ATTRIBUTE = /<VAST\b[^>]*?\sversion\s*=\s*["']\s*([234])(?:\.\d+)*\s*["']/;
/** A partner's `bid.protocol` (OpenRTB list 5.8 / AdCOM), as a version we can wrap in: 4.1 and 4.2 in 4.0. */
const PROTOCOL_VERSION: Readonly<Record<number, VastVersion>> = {
  2: '2.0',
  5: '2.0',
  3: '3.0',
  6: '3.0',
  7: '4.0',
  8: '4.0',
  11: '4.0',
  12: '4.0',
  13: '4.0',
  14: '4.0',
};

/**
 * The VAST version of a partner's answer, which our wrapper follows: the `version` of its markup's root
 * when the `adm` is a document, else its `bid.protocol` (OpenRTB 2.6) when it names a VAST, else the
 * version the player asked for (our request offered the partner only versions up to it).
 */
export function partnerVastVersion(adm: string, protocol: number | undefined, asked: VastVersion): VastVersion {
  const major = VERSION_ATTRIBUTE.exec(adm.slice(0, 2048))?.[1];
  if (major) return major === '4' ? '4.0' : major === '3' ? '3.0' : '2.0';
  return (protocol !== undefined ? PROTOCOL_VERSION[protocol] : undefined) ?? asked;
}

/**
 * A VAST Wrapper for a partner's winning video ad, in the partner's version: the player follows
 * `VASTAdTagURI` to the partner's ad and fires our impression tracker (signed, counted once) with the
 * partner's own pixels. Elements in the order each IAB schema requires: 4.0 AdSystem, Impression,
 * VASTAdTagURI; 2.0 and 3.0 AdSystem, VASTAdTagURI, Impression (no id there), Creatives (required, empty).
 */
export function vastWrapper(o: { baseUrl: string; token: string; adm: string; version?: VastVersion }): string {
  const version = o.version ?? '4.0';
  const id = o.token.slice(0, 16).replace(/[^A-Za-z0-9_.-]/g, '') || 'adnet';
  const impression = `${o.baseUrl}/openrtb/imptracker/${o.token}`;
  const tagUri = `<VASTAdTagURI>${cdata(partnerVastUri(o.baseUrl, o.token, o.adm))}</VASTAdTagURI>`;
  const body =
    version === '4.0'
      ? `<AdSystem>adnet</AdSystem>${impressionTag(impression, 'adnet')}${tagUri}`
      : `<AdSystem>adnet</AdSystem>${tagUri}${impressionTag(impression, undefined)}<Creatives/>`;
  return `${vastRoot(version)}<Ad id="${id}"><Wrapper>${body}</Wrapper></Ad></VAST>`;
}
