import type { EngineEvent } from '@adnet/schemas/events';
import { pack } from '@adnet/schemas/wire/msgpack';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildBatch, buildFromEvents } from './build-rows.ts';
import type { BuiltBatch } from './build-rows.ts';
import { EVENT_COLUMNS } from './event-rows.ts';
import { writePackedEntry } from './packed-rows.ts';
import { RowBinaryWriter } from './row-binary-writer.ts';

/** The batch as the events decoded into objects make it (the path before `writePackedEntry`): the reference. */
const decodedBatch = (packed: readonly Uint8Array[]): BuiltBatch => buildFromEvents(packed, true);

function rowBinaryOf({ rows }: BuiltBatch): Buffer {
  if (!('rowBinary' in rows)) throw new Error('expected a RowBinary body');
  return rows.rowBinary;
}

/** The outcome of a build: its rows and rejections, or the error it threw (`why`: its message, else only that it threw). */
function outcome(build: () => BuiltBatch, why = true): BuiltBatch | { threw: string | true } {
  try {
    return build();
  } catch (err) {
    return { threw: why ? (err as Error).message : true };
  }
}

// A msgpack writer that chooses among the encodings of each value, as any writer may: the reader must read
// them all (or leave the entry to the decoder), whatever the engines' own packer picks.
type Encoded = number[];
const be = (bytes: number, v: number): number[] =>
  Array.from({ length: bytes }, (_, i) => Math.floor(v / 256 ** (bytes - 1 - i)) % 256);
const f64 = (v: number): number[] => {
  const b = Buffer.alloc(8);
  b.writeDoubleBE(v);
  return [...b];
};
const f32 = (v: number): number[] => {
  const b = Buffer.alloc(4);
  b.writeFloatBE(v);
  return [...b];
};

function strEncodings(s: string): fc.Arbitrary<Encoded> {
  const bytes = [...Buffer.from(s, 'utf8')];
  const n = bytes.length;
  const forms: Encoded[] = [];
  if (n < 32) forms.push([0xa0 | n, ...bytes]);
  if (n < 256) forms.push([0xd9, n, ...bytes]);
  forms.push([0xda, ...be(2, n), ...bytes], [0xdb, ...be(4, n), ...bytes]);
  return fc.constantFrom(...forms);
}

function intEncodings(v: number): fc.Arbitrary<Encoded> {
  const forms: Encoded[] = [];
  if (v >= 0 && v <= 0x7f) forms.push([v]);
  if (v >= -32 && v < 0) forms.push([v + 256]);
  if (v >= 0 && v < 2 ** 8) forms.push([0xcc, v]);
  if (v >= 0 && v < 2 ** 16) forms.push([0xcd, ...be(2, v)]);
  if (v >= 0 && v < 2 ** 32) forms.push([0xce, ...be(4, v)]);
  if (v >= -(2 ** 7) && v < 2 ** 7) forms.push([0xd0, (v + 256) % 256]);
  if (v >= -(2 ** 15) && v < 2 ** 15) forms.push([0xd1, ...be(2, (v + 2 ** 16) % 2 ** 16)]);
  if (v >= -(2 ** 31) && v < 2 ** 31) forms.push([0xd2, ...be(4, (v + 2 ** 32) % 2 ** 32)]);
  forms.push([0xcb, ...f64(v)]);
  return fc.constantFrom(...forms);
}

const asciiText = fc.string({
  unit: fc.integer({ min: 0, max: 0x7f }).map((c) => String.fromCharCode(c)),
  maxLength: 80,
});
/** Values of the kinds engines write, in every encoding of them. */
const readValue: fc.Arbitrary<Encoded> = fc.oneof(
  { weight: 6, arbitrary: asciiText.chain(strEncodings) },
  { weight: 2, arbitrary: fc.constantFrom('us', 'de', 'zz', 'US', 'x'.repeat(70), '', 'a').chain(strEncodings) },
  { weight: 6, arbitrary: fc.integer({ min: -(2 ** 31), max: 2 ** 32 - 1 }).chain(intEncodings) },
  { weight: 2, arbitrary: fc.integer({ min: 0, max: 300 }).chain(intEncodings) },
  {
    weight: 2,
    arbitrary: fc
      .constantFrom(
        0,
        1,
        1.5,
        -0,
        NaN,
        Infinity,
        -1,
        2 ** 53 + 2,
        2 ** 40,
        Date.parse('2026-11-24T06:00:00Z'),
        4_294_967_295_001,
      )
      .map((v) => [0xcb, ...f64(v)]),
  },
  { weight: 2, arbitrary: fc.constantFrom<Encoded>([0xc0], [0xc2], [0xc3]) },
);
/** Any value, now and then one outside what engines write (left to the decoder). */
const anyValue: fc.Arbitrary<Encoded> = fc.oneof(
  { weight: 20, arbitrary: readValue },
  {
    weight: 1,
    arbitrary: fc.constantFrom<Encoded>(
      [0xca, ...f32(1.5)],
      // 64-bit integers: the decoder's own reading (a BigInt past 2^53).
      [0xcf, ...be(8, 5)],
      [0xd3, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xfb],
      [0xc4, 2, 1, 2],
      [0xd4, 1, 0],
      [0x91, 0x01],
      [0x81, 0xa1, 0x61, 0x01],
      [0xa2, 0xc3, 0xa9],
      [0xc1],
    ),
  },
);
const KEYS = [...EVENT_COLUMNS, 'format', 'imp_id', 'click_id', '__proto__', 'constructor', 'toString', 'i'];
const textKey = fc.constantFrom(...KEYS).chain(strEncodings);
const anyKey = fc.oneof(
  { weight: 12, arbitrary: textKey },
  { weight: 1, arbitrary: fc.constantFrom<Encoded>([0x05], [0xc0]) },
);

/** The columns every row needs, each fitting its column, in any encoding. */
const fitting: fc.Arbitrary<[Encoded, Encoded][]> = fc.tuple(
  fc.tuple(strEncodings('id'), asciiText.chain(strEncodings)),
  fc.tuple(strEncodings('type'), fc.constantFrom('win', 'click').chain(strEncodings)),
  fc.tuple(strEncodings('ts'), fc.integer({ min: 0, max: 2 ** 32 - 1 }).chain(intEncodings)),
  fc.tuple(strEncodings('engine'), asciiText.chain(strEncodings)),
);

/** An event: a map (under any of its headers), its keys (repeated at times) and values from the given kinds. */
const aMap = (key: fc.Arbitrary<Encoded>, value: fc.Arbitrary<Encoded>): fc.Arbitrary<Encoded> =>
  fc
    .tuple(fc.option(fitting, { freq: 5 }), fc.array(fc.tuple(key, value), { maxLength: 30 }))
    .chain(([first, rest]) => {
      // Mostly led by the columns every row needs, so that the rest of the row is read and checked too.
      const pairs = [...(first ?? []), ...rest];
      const body = pairs.flatMap(([k, v]) => [...k, ...v]);
      const n = pairs.length;
      const heads: Encoded[] = [
        [0xde, ...be(2, n)],
        [0xdf, ...be(4, n)],
      ];
      if (n < 16) heads.push([0x80 | n]);
      return fc.constantFrom(...heads).map((h) => [...h, ...body]);
    });

/** An entry: a list of events (under any of its headers); now and then cut short, with bytes after it, or no list. */
const entryOf = (event: fc.Arbitrary<Encoded>, shapes: readonly string[]): fc.Arbitrary<Uint8Array> =>
  fc.tuple(fc.array(event, { maxLength: 12 }), fc.constantFrom(...shapes)).chain(([events, shape]) => {
    const n = events.length;
    const heads: Encoded[] = [
      [0xdc, ...be(2, n)],
      [0xdd, ...be(4, n)],
    ];
    if (n < 16) heads.push([0x90 | n]);
    return fc.constantFrom(...heads).map((h) => {
      const bytes = [...h, ...events.flat()];
      if (shape === 'cut') bytes.length = Math.max(1, bytes.length - 1);
      if (shape === 'extra') bytes.push(0xc0);
      return Uint8Array.from(shape === 'not a list' ? [0xa1, 0x61] : bytes);
    });
  });

const anEntry: fc.Arbitrary<Uint8Array> = fc.oneof(
  // Within what it reads itself: every encoding, any keys and values of those kinds, fitting the table or not.
  entryOf(aMap(textKey, readValue), ['whole']),
  // Anything.
  entryOf(fc.oneof({ weight: 20, arbitrary: aMap(anyKey, anyValue) }, { weight: 1, arbitrary: anyValue }), [
    'whole',
    'whole',
    'whole',
    'cut',
    'extra',
    'not a list',
  ]),
);

/** What engines write (schemas' events are flat maps of text, whole numbers and booleans), packed as they pack. */
const engineEvent: fc.Arbitrary<EngineEvent> = fc.record(
  {
    id: asciiText,
    type: fc.constantFrom('bid', 'win', 'imp', 'click', 'impression'),
    ts: fc.integer({ min: 0, max: 4_294_967_295_000 }),
    engine: asciiText,
    auction_id: asciiText,
    imp_id: asciiText,
    campaign_id: fc.integer({ min: 0, max: 4_294_967_295 }),
    price_micro_cents: fc.integer({ min: -(2 ** 40), max: 2 ** 50 }),
    charge_nano: fc.maxSafeInteger(),
    country: fc.constantFrom('us', 'de', 'xx'),
    invalid: fc.boolean(),
    source: asciiText,
  },
  { requiredKeys: ['id', 'type', 'ts', 'engine'] },
) as unknown as fc.Arbitrary<EngineEvent>;

describe('writePackedEntry', () => {
  it('writes the same body and rejects the same events as the decoded events, for any bytes a writer may send', () => {
    let readItself = 0;
    fc.assert(
      fc.property(fc.array(anEntry, { maxLength: 5 }), (packed) => {
        for (const p of packed) if (writePackedEntry(new RowBinaryWriter(0), p)) readItself++;
        // Which of two bad entries a batch's error names may differ; each entry's own error is what the
        // ingester dead-letters it with (batch-builder.ts `problems`), and that must not.
        expect(outcome(() => buildBatch(packed, true), false)).toEqual(outcome(() => decodedBatch(packed), false));
        for (const p of packed) expect(outcome(() => buildBatch([p], true))).toEqual(outcome(() => decodedBatch([p])));
      }),
      { numRuns: 1_500 },
    );
    // The entries it read itself, not only those it left to the decoder, were compared.
    expect(readItself).toBeGreaterThan(500);
  }, 60_000);

  it("reads engines' entries itself, without the decoder", () => {
    fc.assert(
      fc.property(fc.array(engineEvent, { maxLength: 40 }), (events) => {
        const packed = pack(events);
        const w = new RowBinaryWriter(0);
        const written = writePackedEntry(w, packed);
        expect(written).toEqual({ events: events.length, rejected: [] });
        expect(w.body()).toEqual(rowBinaryOf(decodedBatch([packed])));
      }),
      { numRuns: 500 },
    );
  });

  it('leaves to the decoder what engines do not write, with nothing of the entry in the body', () => {
    const good = { id: 'e', type: 'win', ts: 1, engine: 'x' };
    for (const [what, odd] of [
      ['a 64-bit integer: the decoder makes it a BigInt', [{ ...good, campaign_id: 2n ** 40n }]],
      ['non-ASCII text', [{ ...good, site_domain: 'bücher.de' }]],
      ['a list in an event', [{ ...good, reason: [1] }]],
      ['a source that is not text: the decoded path throws at source.slice', [{ ...good, source: 5 }]],
      ['an event that is not a map', ['not a map']],
      ['an entry that is not a list', { not: 'a list' }],
    ] as const) {
      const w = new RowBinaryWriter(0);
      w.byte(7);
      expect(writePackedEntry(w, pack(odd)), what).toBeUndefined();
      expect(w.body()).toEqual(Buffer.from([7]));
    }
  });

  it('rejects the events that do not fit with the reasons the decoded path gives, and keeps the rest of the entry', () => {
    const good = { id: 'e', type: 'win', ts: 1, engine: 'x' };
    const packed = pack([
      good,
      { ...good, campaign_id: -1 },
      { ...good, ts: 1.5 },
      { ...good, id: null },
      { ...good, bid_id: true },
      good,
    ]);
    const w = new RowBinaryWriter(0);
    const written = writePackedEntry(w, packed);
    expect(written?.rejected.map((r) => r.event)).toEqual([1, 2, 3, 4]);
    expect(written).toEqual({
      events: 6,
      rejected: decodedBatch([packed]).rejected.map(({ event, reason }) => ({ event, reason })),
    });
    expect(w.body()).toEqual(rowBinaryOf(decodedBatch([packed])));
  });
});
