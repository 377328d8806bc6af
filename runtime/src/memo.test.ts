import { describe, expect, it } from 'vitest';
import { memoByString } from './memo.ts';

describe('memoByString', () => {
  it('computes each answer once, undefined ones too', () => {
    const calls: string[] = [];
    const lengthOrNothing = memoByString((s) => (calls.push(s), s === '' ? undefined : s.length));
    expect([lengthOrNothing('abc'), lengthOrNothing('abc'), lengthOrNothing(''), lengthOrNothing('')]).toEqual([
      3,
      3,
      undefined,
      undefined,
    ]);
    expect(calls).toEqual(['abc', '']);
  });

  it('keeps at most `max` answers, starting over when full', () => {
    const calls: string[] = [];
    const upper = memoByString((s) => (calls.push(s), s.toUpperCase()), 2);
    for (const s of ['a', 'b', 'c', 'a', 'c']) upper(s);
    // 'c' found the memo full and started it over: 'a' is computed again, 'c' is still there.
    expect(calls).toEqual(['a', 'b', 'c', 'a']);
  });
});
