import { TCString } from '@iabtcf/core';
import type { BidRequest } from '@adnet/schemas/openrtb';
import { LRUCache } from 'lru-cache';

/**
 * Why a request's privacy signals rule out user-level processing (docs/openrtb.md, privacy), or
 * undefined when they allow it: `coppa` (`regs.coppa: 1`), `gdpr` (`regs.gdpr: 1` without a
 * TCF v2 consent string that grants purposes 1 and 2), `us_privacy` (a CCPA string whose third
 * character is `Y`: the user opted out of sale).
 */
export type PrivacyBar = 'coppa' | 'gdpr' | 'us_privacy';

// Purpose 1: store and/or access information on a device; purpose 2: use limited data to select
// advertising, which TCF 2.2 says covers frequency capping. Both are needed for a per-user cap.
const PURPOSES = [1, 2] as const;

/** True when the TC string decodes as TCF v2 and consents to (or, for purpose 2, claims legitimate interest in) purposes 1 and 2. */
export function tcfAllowsCaps(consent: string): boolean {
  try {
    const tc = TCString.decode(consent);
    if (tc.version !== 2) return false;
    return (
      tc.purposeConsents.has(PURPOSES[0]) &&
      (tc.purposeConsents.has(PURPOSES[1]) || tc.purposeLegitimateInterests.has(PURPOSES[1]))
    );
  } catch {
    return false;
  }
}

// A user's consent string comes back on each of their requests; decoding one costs ~13 µs, a lookup far less.
const verdicts = new LRUCache<string, boolean>({ max: 10_000 });
const MAX_CONSENT_LENGTH = 10_000;

function consentGiven(consent: string | undefined): boolean {
  if (typeof consent !== 'string' || consent === '' || consent.length > MAX_CONSENT_LENGTH) return false;
  let v = verdicts.get(consent);
  if (v === undefined) verdicts.set(consent, (v = tcfAllowsCaps(consent)));
  return v;
}

/** A CCPA US Privacy string (`1YYN`): version 1, third character `Y` is an opt-out of sale; anything else is no signal. */
export const usPrivacyOptOut = (s: string | undefined): boolean =>
  typeof s === 'string' && s.length === 4 && s[0] === '1' && (s[2] === 'Y' || s[2] === 'y');

/**
 * The first signal that bars user-level processing, undefined when none does. It reads the OpenRTB 2.6
 * places (`regs.gdpr`, `regs.us_privacy`, `user.consent`): a request is normalised first (normalise.ts),
 * which fills them from their 2.5 `ext` places.
 */
export function privacyBar(request: BidRequest): PrivacyBar | undefined {
  const regs = request.regs;
  if (!regs) return undefined;
  if (regs.coppa === 1) return 'coppa';
  if (regs.gdpr === 1 && !consentGiven(request.user?.consent)) return 'gdpr';
  if (usPrivacyOptOut(regs.us_privacy)) return 'us_privacy';
  return undefined;
}

/**
 * Our own doors' GDPR signal (the widget's `/imp`, the audience pixel): `gdpr=1` with a `gdpr_consent` TC string
 * that does not grant purposes 1 and 2, as IAB's pixel macros `${GDPR}` and `${GDPR_CONSENT_<vendor>}` fill them.
 */
export const gdprWithoutConsent = (gdpr: string | null, consent: string | null): boolean =>
  gdpr === '1' && !consentGiven(consent ?? undefined);
