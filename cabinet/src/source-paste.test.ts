import { describe, expect, it } from 'vitest';
import { pastedSites, pastedZones } from './source-paste.ts';

describe('pasted traffic sources', () => {
  it('splits zones and sites on lines, commas, semicolons and spaces', () => {
    expect(pastedZones(' a1b2\nc3d4, e5f6;\n\n g7 ')).toEqual(['a1b2', 'c3d4', 'e5f6', 'g7']);
    expect(pastedSites('17\n18, 19')).toEqual([17, 18, 19]);
  });
  it('passes what is not a site id on as NaN, for the API to name', () => {
    expect(pastedSites('17 abc')).toEqual([17, NaN]);
  });
});
