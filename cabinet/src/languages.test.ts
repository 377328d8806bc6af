import { LANGUAGE_CODES as API_CODES } from '@adnet/schemas/geo';
import { describe, expect, it } from 'vitest';
import { LANGUAGE_CODES, languageLabel, languageName, languagesByName } from './languages.ts';
import { matchesSearch } from './search-text.ts';

describe('languages for the picker', () => {
  it('lists exactly the codes the API accepts', () => {
    expect(LANGUAGE_CODES).toEqual([...API_CODES].sort());
  });

  it('names the languages, found by name or by code, listed by name', () => {
    expect(languageName('de')).toBe('German');
    expect(languageLabel('fr')).toBe('French (fr)');
    const found = (q: string) => LANGUAGE_CODES.filter((c) => matchesSearch(languageLabel(c), q));
    expect(found('germ')).toEqual(['de']);
    expect(found('(es)')).toEqual(['es']);
    const ordered = languagesByName().map(languageName);
    expect(ordered).toEqual([...ordered].sort((a, b) => a.localeCompare(b)));
  });
});
