// Country and language code lists come from maintained packages rather than a
// hand-copied table, so a new ISO assignment is an upgrade, not an edit.
import countries from 'i18n-iso-countries';
import ISO6391 from 'iso-639-1';

const alpha2ToAlpha3 = countries.getAlpha2Codes();

/** Lowercase ISO 3166-1 alpha-2 codes, as campaigns store them. */
export const COUNTRY_CODES: ReadonlySet<string> = new Set(Object.keys(alpha2ToAlpha3).map((c) => c.toLowerCase()));

/** Lowercase ISO 639-1 codes. */
export const LANGUAGE_CODES: ReadonlySet<string> = new Set(ISO6391.getAllCodes());

/** OpenRTB sends ISO 3166-1 alpha-3; campaigns target lowercase alpha-2. */
export function alpha3ToAlpha2(code: string): string | undefined {
  const a2 = countries.alpha3ToAlpha2(code.toUpperCase());
  return a2 ? a2.toLowerCase() : undefined;
}
