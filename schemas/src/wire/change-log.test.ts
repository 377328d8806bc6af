import { describe, expect, it } from 'vitest';
import { mirrorValue } from './change-log.ts';
import { pack, unpack } from './msgpack.ts';

describe('mirrorValue', () => {
  it('keeps a decoded config value as it was written, as its own copy', () => {
    const written = {
      id: 7,
      status: 'active',
      geo_include: ['DE', 'FR', 'DE'],
      landing_url: 'https://shop.example.com/?c={click_id}',
      nested: { name: 'x'.repeat(300), list: [{ a: 'approved' }, null, 1.5, true] },
      at: new Date(1_700_000_000_000),
    };
    const decoded = unpack<typeof written>(pack(written));
    const kept = mirrorValue(decoded) as typeof written;
    expect(kept).toStrictEqual(decoded);
    expect(kept).toEqual(written);
    expect(kept).not.toBe(decoded);
    expect(kept.nested).not.toBe(decoded.nested);
    // A second value with the same strings decodes equal too (the table hands back its first copy).
    expect(mirrorValue(unpack(pack(written)))).toStrictEqual(kept);
    expect(mirrorValue('active')).toBe('active');
    expect(mirrorValue(null)).toBe(null);
  });
});
