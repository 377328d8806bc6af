import { describe, expect, it } from 'vitest';
import { keepUnchangedLists } from './config-mirror.ts';

describe('a fresh snapshot keeps the source lists already compiled', () => {
  it('keeps the old object where the list is unchanged, takes the new one where it changed', () => {
    const same = { mode: 'exclude', zones: ['a', 'b'], sites: [1] };
    const changed = { mode: 'exclude', zones: ['a'], sites: [] };
    const before = new Map<number, unknown>([
      [1, same],
      [2, changed],
    ]);
    const after = new Map<number, unknown>([
      [1, structuredClone(same)],
      [2, { ...changed, mode: 'include' }],
      [3, { mode: 'include', zones: [], sites: [2] }],
    ]);
    keepUnchangedLists(before, after);
    expect(after.get(1)).toBe(same);
    expect(after.get(2)).not.toBe(changed);
    expect(after.get(3)).toEqual({ mode: 'include', zones: [], sites: [2] });
  });
});
