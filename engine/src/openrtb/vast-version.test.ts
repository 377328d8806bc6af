import { describe, expect, it } from 'vitest';
import { inlineVastVersion, queryVastVersion, videoVastVersion } from './vast-version.ts';

describe('the VAST version of an OpenRTB video imp', () => {
  it('is the highest inline version its protocols allow among 2.0, 3.0 and 4.0', () => {
    const cases: [number[] | undefined, string | undefined][] = [
      [undefined, '4.0'],
      [[], '4.0'],
      [[2], '2.0'],
      [[2, 3], '3.0'],
      [[3, 2], '3.0'],
      [[2, 3, 5, 6], '3.0'],
      [[7], '4.0'],
      [[3, 7], '4.0'],
      [[2, 3, 5, 6, 7, 8, 11, 12, 13, 14], '4.0'],
      [[11, 2], '2.0'],
      // Wrapper codes, VAST 1.0, DAAST, 4.1 and 4.2 alone, and unknown codes: none of ours.
      [[5, 6, 8], undefined],
      [[1, 4, 9, 10], undefined],
      [[11], undefined],
      [[12, 13, 14], undefined],
      [[99], undefined],
      [[0, -1, 1e9], undefined],
    ];
    for (const [protocols, version] of cases)
      expect([protocols, inlineVastVersion(protocols)]).toEqual([protocols, version]);
  });

  it('needs video/mp4 when the imp lists mimes', () => {
    expect(videoVastVersion({ mimes: ['video/webm'], protocols: [7] })).toBeUndefined();
    expect(videoVastVersion({ mimes: ['video/webm', 'VIDEO/MP4'], protocols: [2, 3] })).toBe('3.0');
    expect(videoVastVersion({ mimes: [] })).toBe('4.0');
  });
});

describe("the version a zone's VAST URL asks for", () => {
  it('is 4.0 without v, 2.0 to 4.0 by v, and null (a 400) for anything else', () => {
    expect(queryVastVersion(null)).toBe('4.0');
    for (const [v, version] of [
      ['2', '2.0'],
      ['2.0', '2.0'],
      ['3', '3.0'],
      ['3.0', '3.0'],
      ['4', '4.0'],
      ['4.0', '4.0'],
    ] as const)
      expect(queryVastVersion(v)).toBe(version);
    for (const v of ['5', '1', '', '4.1', '2.0.1', ' 2', 'toString', '__proto__', 'constructor'])
      expect([v, queryVastVersion(v)]).toEqual([v, null]);
  });
});
