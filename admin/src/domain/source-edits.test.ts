import { MAX_SOURCE_ENTRIES, NO_SOURCES } from '@adnet/schemas/source-lists';
import { describe, expect, it } from 'vitest';
import { addSources, removeSources, sameSources } from './source-edits.ts';

describe('source list edits', () => {
  it('adds each entry once, keeping the mode and the order first given', () => {
    const r = addSources({ mode: 'include', zones: ['a'], sites: [1] }, { zones: ['b', 'a', 'b'], sites: [2, 1] });
    expect(r).toEqual({ ok: true, list: { mode: 'include', zones: ['a', 'b'], sites: [1, 2] } });
  });
  it('is idempotent: adding or removing twice is doing it once', () => {
    const once = addSources(NO_SOURCES, { zones: ['a'] });
    if (!once.ok) throw new Error('refused');
    const twice = addSources(once.list, { zones: ['a'] });
    expect(twice.ok && sameSources(twice.list, once.list)).toBe(true);
    const gone = removeSources(once.list, { zones: ['a', 'zz'], sites: [5] });
    expect(removeSources(gone, { zones: ['a'] })).toEqual(gone);
    expect(gone).toEqual(NO_SOURCES);
  });
  it('refuses to pass the limit, naming the fields that were sent', () => {
    const full = {
      mode: 'exclude' as const,
      zones: Array.from({ length: MAX_SOURCE_ENTRIES }, (_, i) => `z${i}`),
      sites: [],
    };
    expect(addSources(full, { zones: ['z1'] }).ok).toBe(true);
    const r = addSources(full, { sites: [1] });
    expect(r).toEqual({ ok: false, fields: { sites: expect.stringMatching(/at most 10000 .* 10001/) } });
  });
});
