import { describe, expect, it } from 'vitest';
import { randomUuid } from './random-uuid.ts';

const V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('randomUuid', () => {
  it('gives version-4 UUIDs in crypto.randomUUID’s text form, all different across several refills', () => {
    const ids = Array.from({ length: 2_000 }, randomUuid);
    for (const id of ids) expect(id).toMatch(V4);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('uses every hex digit in the random positions (not a constant or a counter)', () => {
    const seen = new Set<string>();
    for (let k = 0; k < 200; k++) for (const ch of randomUuid().slice(0, 8)) seen.add(ch);
    expect(seen.size).toBe(16);
  });
});
