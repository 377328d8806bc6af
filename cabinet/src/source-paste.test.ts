import { describe, expect, it } from 'vitest';
import { adjustmentsText, pastedAdjustments, pastedSites, pastedZones } from './source-paste.ts';

describe('pasted traffic sources', () => {
  it('splits zones and sites on lines, commas, semicolons and spaces', () => {
    expect(pastedZones(' a1b2\nc3d4, e5f6;\n\n g7 ')).toEqual(['a1b2', 'c3d4', 'e5f6', 'g7']);
    expect(pastedSites('17\n18, 19')).toEqual([17, 18, 19]);
  });
  it('passes what is not a site id on as NaN, for the API to name', () => {
    expect(pastedSites('17 abc')).toEqual([17, NaN]);
  });
  it('reads adjustment lines and writes them back', () => {
    const typed = 'zone a1b2 x2\nsite 17 0.5\ncountry DE, 1.25\n';
    const list = pastedAdjustments(typed);
    expect(list).toEqual([
      { zone: 'a1b2', multiplier: 2 },
      { site: 17, multiplier: 0.5 },
      { country: 'de', multiplier: 1.25 },
    ]);
    expect(adjustmentsText(list)).toBe('zone a1b2 x2\nsite 17 x0.5\ncountry de x1.25');
    expect(pastedAdjustments('device mobile 2')).toEqual([{ multiplier: NaN }]);
  });
});
