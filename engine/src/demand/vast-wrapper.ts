import { isSafeHttpUrl } from '@adnet/schemas/url';
import { VAST_NS } from '../openrtb/ad-markup.ts';

const cdata = (s: string) => `<![CDATA[${s.replaceAll(']]>', ']]]]><![CDATA[>')}]]>`;

/** Where the player fetches a partner's VAST: its `adm` when that is a URL, else our copy of its markup (`/openrtb/adm/<token>`). */
export const partnerVastUri = (baseUrl: string, token: string, adm: string): string => {
  const trimmed = adm.trim();
  return isSafeHttpUrl(trimmed) ? trimmed : `${baseUrl}/openrtb/adm/${token}`;
};

/**
 * A VAST 4.0 Wrapper for a partner's winning video ad: the player follows `VASTAdTagURI` to the
 * partner's ad and fires our impression tracker (signed, counted once) with the partner's own pixels.
 * Elements in the order the IAB schema requires (AdSystem, Impression, VASTAdTagURI).
 */
export function vastWrapper(baseUrl: string, token: string, adm: string): string {
  return (
    `<?xml version="1.0" encoding="UTF-8"?><VAST version="4.0" xmlns="${VAST_NS}"><Ad id="${token.slice(0, 16).replace(/[^A-Za-z0-9_.-]/g, '')}"><Wrapper>` +
    `<AdSystem>adnet</AdSystem>` +
    `<Impression id="adnet">${cdata(`${baseUrl}/openrtb/imptracker/${token}`)}</Impression>` +
    `<VASTAdTagURI>${cdata(partnerVastUri(baseUrl, token, adm))}</VASTAdTagURI>` +
    `</Wrapper></Ad></VAST>`
  );
}
