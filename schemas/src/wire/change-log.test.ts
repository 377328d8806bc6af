import { describe, expect, it } from 'vitest';
import { mirrorValue, readChanges } from './change-log.ts';
import type { ChangeLogSource } from './change-log.ts';
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

describe('readChanges with a pause', () => {
  // A log of `values` as XRANGE (buffers) answers it; only xrangeBuffer is called.
  const log = (values: readonly (Record<string, unknown> | null)[]): ChangeLogSource =>
    ({
      xrangeBuffer: () =>
        Promise.resolve(
          values.map((v, i) => [
            Buffer.from(`${i + 1}-0`),
            [
              ...['k', 'campaign', 'id', String(i + 1), 'op', v ? 'put' : 'del', 'rev', '1'].map((f) => Buffer.from(f)),
              ...(v ? [Buffer.from('v'), pack(v)] : []),
            ],
          ]),
        ),
    }) as unknown as ChangeLogSource;

  it('decodes the same entries as without one, pausing before each', async () => {
    for (const n of [0, 1, 7, 30]) {
      const values = Array.from({ length: n }, (_, i) =>
        i % 5 === 4
          ? null
          : {
              id: i,
              status: i % 2 ? 'active' : 'paused',
              geo_include: ['DE', 'FR'].slice(0, i % 3),
              name: 'x'.repeat(i * 20),
            },
      );
      let pauses = 0;
      const paced = await readChanges(log(values), '0-0', 100, () => {
        pauses++;
        return Promise.resolve();
      });
      expect(paced).toStrictEqual(await readChanges(log(values), '0-0', 100));
      expect(paced.map((c) => c.op)).toEqual(values.map((v) => (v ? 'put' : 'del')));
      // The decoding is what a running engine spreads over turns: one entry at most between two pauses.
      expect(pauses).toBe(n);
    }
  });
});
