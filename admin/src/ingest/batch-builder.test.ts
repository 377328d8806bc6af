import { describe, expect, it } from 'vitest';
import type { EngineEvent } from '@adnet/schemas/events';
import { pack } from '@adnet/schemas/wire/msgpack';
import { BatchBuilder } from './batch-builder.ts';
import { eventsRowBinary, toRowValues } from './event-rows.ts';

const event = (i: number): EngineEvent => ({
  id: `ev-${i}-${'é'.repeat(i % 3)}`,
  type: i % 2 ? 'win' : 'bid',
  ts: 1_790_000_000_000 + i,
  engine: 'e1',
  bid_id: `b${i}`,
  auction_id: 'a',
  imp_id: '1',
  partner_id: 1,
  campaign_id: i,
  creative_id: 2,
  advertiser_id: 3,
  price_micro_cents: 150_000 + i,
  charge_nano: 5_000_000_000 + i,
  country: 'us',
  device: 'mobile',
  // A long text: its RowBinary length takes two varint bytes.
  source: 'x'.repeat(i % 200),
});
const entries = (n: number, per: number) =>
  Array.from({ length: n }, (_, k) => pack(Array.from({ length: per }, (_, i) => event(k * per + i))));

describe('BatchBuilder', () => {
  it('builds on its worker thread the same RowBinary body as on the main thread, entries in order', async () => {
    const packed = entries(7, 40);
    const events = Array.from({ length: 7 * 40 }, (_, i) => event(i));
    const builder = new BatchBuilder({ rowBinary: true, inWorker: true });
    try {
      // Two batches at once: each answer goes to its own batch.
      const [a, b] = await Promise.all([builder.build(packed), builder.build(packed.slice(0, 1))]);
      expect(a).toEqual({ rows: { count: 280, rowBinary: eventsRowBinary(events) }, rejected: [] });
      expect(b).toEqual({ rows: { count: 40, rowBinary: eventsRowBinary(events.slice(0, 40)) }, rejected: [] });
      expect(await builder.build([])).toEqual({ rows: { count: 0, rowBinary: eventsRowBinary([]) }, rejected: [] });
    } finally {
      await builder.close();
    }
  });

  it('fails the builds in hand when its worker stops, and starts another for the next', async () => {
    const builder = new BatchBuilder({ rowBinary: true, inWorker: true });
    const packed = entries(200, 100);
    await builder.build(packed.slice(0, 1)); // the worker is up
    const inHand = builder.build(packed);
    await builder.close();
    await expect(inHand).rejects.toThrow(/worker exited/);
    expect((await builder.build(packed.slice(0, 2))).rows.count).toBe(200);
    await builder.close();
  });

  it('rejects an entry that is not msgpack, and keeps building the next', async () => {
    const builder = new BatchBuilder({ rowBinary: true, inWorker: true });
    try {
      await expect(builder.build([Buffer.from([0xc1])])).rejects.toThrow();
      expect((await builder.build(entries(1, 3))).rows.count).toBe(3);
    } finally {
      await builder.close();
    }
  });

  it.each([
    ['on its worker thread (RowBinary)', { rowBinary: true, inWorker: true }],
    ['on the main thread (RowBinary)', { rowBinary: true, inWorker: false }],
    ['on the main thread (values)', { rowBinary: false, inWorker: false }],
  ])('%s, leaves out the events whose values the table cannot hold and names them by entry and place', async (_, o) => {
    const hostile = [
      { ...event(1), campaign_id: -1 },
      { ...event(2), charge_nano: 1.5 },
      { ...event(3), ts: Number.NaN },
      { ...event(4), engine: 5 },
      7,
    ];
    const packed = [
      pack([event(0), hostile[0], event(5)]),
      pack([hostile[1], hostile[2]]),
      pack([event(6), hostile[3], hostile[4], event(7)]),
    ];
    const builder = new BatchBuilder(o);
    try {
      const built = await builder.build(packed);
      const kept = [event(0), event(5), event(6), event(7)];
      expect(built.rows).toEqual(
        o.rowBinary ? { count: 4, rowBinary: eventsRowBinary(kept) } : { count: 4, values: kept.map(toRowValues) },
      );
      expect(built.rejected.map(({ entry, event }) => [entry, event])).toEqual([
        [0, 1],
        [1, 0],
        [1, 1],
        [2, 1],
        [2, 2],
      ]);
      expect(built.rejected.map((r) => r.reason)).toEqual([
        'campaign_id: number -1 does not fit UInt32',
        'charge_nano: number 1.5 does not fit Int64',
        "ts: number NaN does not fit DateTime64(3, 'UTC')",
        'engine: number 5 does not fit String',
        'not an event (an object)',
      ]);
    } finally {
      await builder.close();
    }
  });
});
