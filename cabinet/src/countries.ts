import type { FieldSpec } from './form.ts';

// Countries by name for the pickers. The codes are the API's list (schemas/src/geo.ts, checked
// against it by countries.test.ts) packed as one string: the schemas' country tables would bring
// every name in every language into the bundle, while the browser already knows the names.

const PACKED =
  'adaeafagaialamaoaqarasatauawaxazbabbbdbebfbgbhbibjblbmbnbobqbrbsbtbvbwbybzcacccdcfcgchcickclcmcncocrcucvcwcxcyczdedjdkdmdodzeceeegeheresetfifjfkfmfofrgagbgdgegfggghgiglgmgngpgqgrgsgtgugwgyhkhmhnhrhthuidieiliminioiqirisitjejmjojpkekgkhkikmknkpkrkwkykzlalblclilklrlsltlulvlymamcmdmemfmgmhmkmlmmmnmompmqmrmsmtmumvmwmxmymznancnenfngninlnonpnrnunzompapepfpgphpkplpmpnprpsptpwpyqarerorsrurwsasbscsdsesgshsisjskslsmsnsosrssstsvsxsysztctdtftgthtjtktltmtntotrtttvtwtzuaugumusuyuzvavcvevgvivnvuwfwsxkyeytzazmzw';

/** Lowercase ISO 3166-1 alpha-2 codes, as campaigns store them. */
export const COUNTRY_CODES: readonly string[] = PACKED.match(/../g) ?? [];

let names: Intl.DisplayNames | undefined;

/** The country's name in English ("de" -> "Germany"); the code itself where the browser has no name for it. */
export function countryName(code: string): string {
  names ??= new Intl.DisplayNames(['en'], { type: 'region', fallback: 'code' });
  try {
    return names.of(code.toUpperCase()) ?? code.toUpperCase();
  } catch {
    return code.toUpperCase();
  }
}

/** A country as the pickers list it: "Germany (DE)", so it is found by name or by code. */
export const countryLabel = (code: string): string => `${countryName(code)} (${code.toUpperCase()})`;

let byName: string[] | undefined;

/** The codes in the order of their names, as a list to scan reads. */
export function countriesByName(): readonly string[] {
  byName ??= [...COUNTRY_CODES].sort((a, b) => countryName(a).localeCompare(countryName(b)));
  return byName;
}

/** A field choosing countries by name, sent as their codes; none chosen means every country. */
export const countriesField = (name: string, label: string, value?: readonly string[]): FieldSpec => ({
  name,
  label,
  type: 'picker',
  options: countriesByName(),
  optionLabel: countryLabel,
  value,
  hint: 'Type part of a name or a code to find a country',
});
