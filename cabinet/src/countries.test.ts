import { COUNTRY_CODES as API_CODES } from '@adnet/schemas/geo';
import { describe, expect, it } from 'vitest';
import { COUNTRY_CODES, countryLabel, countryName } from './countries.ts';
import { matchesSearch } from './search-text.ts';

describe('countries for the pickers', () => {
  it('lists exactly the codes the API accepts', () => {
    expect(COUNTRY_CODES).toEqual([...API_CODES].sort());
  });

  it('names every country, and is found by name, accents aside, or by code', () => {
    expect(countryName('de')).toBe('Germany');
    expect(countryLabel('us')).toBe('United States (US)');
    expect(COUNTRY_CODES.filter((c) => countryName(c) === c.toUpperCase())).toEqual([]);
    const found = (q: string) => COUNTRY_CODES.filter((c) => matchesSearch(countryLabel(c), q));
    expect(found('germ')).toEqual(['de']);
    expect(found('(DE)')).toEqual(['de']);
    expect(found('cote')).toEqual(['ci']);
    expect(found('  ')).toHaveLength(COUNTRY_CODES.length);
    expect(found('united').map(countryName)).toEqual(
      expect.arrayContaining(['United Kingdom', 'United States', 'United Arab Emirates']),
    );
    expect(found('atlantis')).toEqual([]);
  });
});
