// Country and language code lists come from maintained packages rather than a
// hand-copied table, so a new ISO assignment is an upgrade, not an edit.
import countries from 'i18n-iso-countries';
import ISO6391 from 'iso-639-1';

const alpha2ToAlpha3 = countries.getAlpha2Codes();

/** Lowercase ISO 3166-1 alpha-2 codes, as campaigns store them. */
export const COUNTRY_CODES: ReadonlySet<string> = new Set(Object.keys(alpha2ToAlpha3).map((c) => c.toLowerCase()));

/** Lowercase ISO 639-1 codes. */
export const LANGUAGE_CODES: ReadonlySet<string> = new Set(ISO6391.getAllCodes());

/** Uppercase alpha-3 to lowercase alpha-2, built once: the bid path looks a country up per request. */
const ALPHA3: ReadonlyMap<string, string> = new Map(
  Object.entries(countries.getAlpha3Codes()).map(([a3, a2]) => [a3, a2.toLowerCase()]),
);

/**
 * OpenRTB 2.5 sends `device.geo.country` as ISO 3166-1 alpha-3; campaigns target lowercase alpha-2.
 * Anything that is not an assigned alpha-3 code (an alpha-2 code, a made-up or hostile string) is
 * undefined: an unknown country, never a value written as the partner sent it.
 */
export function alpha3ToAlpha2(code: string): string | undefined {
  return ALPHA3.get(code) ?? (code.length === 3 ? ALPHA3.get(code.toUpperCase()) : undefined);
}

/** Lowercase alpha-2 to the uppercase alpha-3 OpenRTB 2.5 sends (`device.geo.country`); undefined when unassigned. */
export const alpha2ToAlpha3Code = (code: string): string | undefined => alpha2ToAlpha3[code.toUpperCase()];
