import { describe, expect, it } from 'vitest';
import type { EngineEvent } from '@adnet/schemas/events';
import { pack } from '@adnet/schemas/wire/msgpack';
import { BatchBuilder } from './batch-builder.ts';
import { eventsRowBinary } from './event-rows.ts';

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
const entries = (n: number, per: number) => Array.from({ length: n }, (_, k) => pack(Array.from({ length: per }, (_, i) => event(k * per + i))));

describe('BatchBuilder', () => {
  it('builds on its worker thread the same RowBinary body as on the main thread, entries in order', async () => {
    const packed = entries(7, 40);
    const events = Array.from({ length: 7 * 40 }, (_, i) => event(i));
    const builder = new BatchBuilder({ rowBinary: true, inWorker: true });
    try {
      // Two batches at once: each answer goes to its own batch.
      const [a, b] = await Promise.all([builder.build(packed), builder.build(packed.slice(0, 1))]);
      expect(a).toEqual({ count: 280, rowBinary: eventsRowBinary(events) });
      expect(b).toEqual({ count: 40, rowBinary: eventsRowBinary(events.slice(0, 40)) });
      expect(await builder.build([])).toEqual({ count: 0, rowBinary: eventsRowBinary([]) });
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
    expect((await builder.build(packed.slice(0, 2))).count).toBe(200);
    await builder.close();
  });

  it('rejects an entry that is not msgpack, and keeps building the next', async () => {
    const builder = new BatchBuilder({ rowBinary: true, inWorker: true });
    try {
      await expect(builder.build([Buffer.from([0xc1])])).rejects.toThrow();
      expect((await builder.build(entries(1, 3))).count).toBe(3);
    } finally {
      await builder.close();
    }
  });
});
