import { describe, expect, it } from 'vitest';
import { COUNTRY_CODES, alpha3ToAlpha2 } from './geo.ts';

describe('alpha3ToAlpha2', () => {
  it('maps assigned ISO 3166-1 alpha-3 codes, in either case', () => {
    expect(alpha3ToAlpha2('USA')).toBe('us');
    expect(alpha3ToAlpha2('deu')).toBe('de');
    expect(alpha3ToAlpha2('GBR')).toBe('gb');
  });

  it('is undefined for anything else: alpha-2, unassigned codes, formulas, markup', () => {
    for (const bad of ['US', 'us', 'XXX', 'ZZZ', '', 'USAA', '=cmd|calc!A0', '+1', '@SUM(A1)', '<b>', 'U\u0000A'])
      expect(alpha3ToAlpha2(bad), JSON.stringify(bad)).toBeUndefined();
  });

  it('agrees with the alpha-2 list campaigns target', () => {
    expect(COUNTRY_CODES.has(alpha3ToAlpha2('FRA') ?? '')).toBe(true);
    expect(COUNTRY_CODES.size).toBeGreaterThan(240);
  });
});
