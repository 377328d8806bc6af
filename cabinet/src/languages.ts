// Languages by name for the campaign builder's picker, as countries.ts does countries: the API's codes
// (schemas/src/geo.ts, checked against it by languages.test.ts) packed as one string, named by the browser.

const PACKED =
  'aaabaeafakamanarasavayazbabebgbibmbnbobrbscacechcocrcscucvcydadedvdzeeeleneoeseteufafffifjfofrfygagdglgngugvhahehihohrhthuhyhziaidieigiiikioisitiujajvkakgkikjkkklkmknkokrkskukvkwkylalblglilnloltlulvmgmhmimkmlmnmrmsmtmynanbndnengnlnnnonrnvnyocojomorospapiplpsptqurmrnrorurwsascsdsesgsiskslsmsnsosqsrssstsusvswtatetgthtitktltntotrtstttwtyugukuruzvevivowawoxhyiyozazhzu';

/** Lowercase ISO 639-1 codes, as campaigns store them. */
export const LANGUAGE_CODES: readonly string[] = PACKED.match(/../g) ?? [];

let names: Intl.DisplayNames | undefined;

/** The language's name in English ("de" -> "German"); the code itself where the browser has no name for it. */
export function languageName(code: string): string {
  names ??= new Intl.DisplayNames(['en'], { type: 'language', fallback: 'code' });
  try {
    return names.of(code) ?? code;
  } catch {
    return code;
  }
}

/** A language as the picker lists it: "German (de)", so it is found by name or by code. */
export const languageLabel = (code: string): string => `${languageName(code)} (${code})`;

let byName: string[] | undefined;

/** The codes in the order of their names. */
export function languagesByName(): readonly string[] {
  byName ??= [...LANGUAGE_CODES].sort((a, b) => languageName(a).localeCompare(languageName(b)));
  return byName;
}
