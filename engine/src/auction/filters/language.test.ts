import { describe, expect, it } from 'vitest';
import { candidateFixture, impFixture } from '../../../test/fixtures/auction-fixtures.ts';
import { languageFilter } from './language.ts';

describe('language filter', () => {
  it('keeps a campaign with languages to requests in one of them', () => {
    const de = candidateFixture({ languages: ['de'] });
    expect(languageFilter.reject(de, impFixture({ language: 'en' }))).toBe(true);
    expect(languageFilter.reject(de, impFixture({ language: undefined }))).toBe(true);
    expect(languageFilter.reject(de, impFixture({ language: 'de' }))).toBe(false);
  });

  it('lets a campaign without languages serve any request, one without a language included', () => {
    const any = candidateFixture({ languages: [] });
    expect(languageFilter.reject(any, impFixture({ language: undefined }))).toBe(false);
    expect(languageFilter.reject(any, impFixture({ language: 'fr' }))).toBe(false);
  });
});
