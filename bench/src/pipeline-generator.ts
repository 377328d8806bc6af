// Child of `bench:pipeline`: writes events into the stream at a steady rate for a set time, then reports how
// many. GENERATOR=batchers (default): as engines do, several EventBatchers (500 events per entry, flushed every
// 50 ms), each event built and packed as it is pushed. GENERATOR=prepacked: the same entries (the engines'
// wire format, `xaddArgs`, 500 events each) packed once beforehand and added again and again, so the writer
// costs little more than Redis's XADD and can offer a rate the batchers' building and packing cannot reach
// on a shared machine (events repeat their ids; ClickHouse counts rows, deduplicating only by batch token).
import { EventBatcher } from '@adnet/engine/event-batcher';
import type { EngineEvent } from '@adnet/schemas/events';
import { xaddArgs } from '@adnet/schemas/wire/event-stream';
import { Redis } from 'ioredis';

/** The bench's event mix: one bid in ten, the rest wins, over 1 000 campaigns. */
export function benchEvent(id: string, i: number, ts: number): EngineEvent {
  const common = {
    id,
    ts,
    engine: 'bench',
    bid_id: `b${i}`,
    partner_id: 1,
    campaign_id: 1 + (i % 1000),
    creative_id: 1 + (i % 3000),
    advertiser_id: 1 + (i % 50),
    price_micro_cents: 150_000,
    country: ['us', 'de', 'fr', 'br'][i % 4],
    device: ['desktop', 'mobile'][i % 2],
  };
  return i % 10 === 0
    ? { type: 'bid', auction_id: `a${i}`, imp_id: '1', ...common }
    : { type: 'win', charge_nano: 1_500_000, ...common };
}

if (process.send && process.argv[1]?.endsWith('pipeline-generator.ts')) {
  const url = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
  const rate = Number(process.env.RATE ?? 200_000);
  const seconds = Number(process.env.SECONDS ?? 20);
  const prefix = process.env.ID_PREFIX ?? 's';
  if (process.env.GENERATOR === 'prepacked') await prepacked(url, rate, seconds, prefix);
  const batchers = Array.from({ length: Number(process.env.BATCHERS ?? 4) }, () => {
    const b = new EventBatcher({
      redis: new Redis(url),
      flushMs: 50,
      batchMax: 500,
      bufferMax: 5_000_000,
      streamMaxLen: 100_000_000,
    });
    b.start();
    return b;
  });
  process.send({ type: 'listening', port: 0 });
  const t0 = performance.now();
  let sent = 0;
  const total = Math.round(rate * seconds);
  await new Promise<void>((resolve) => {
    const tick = setInterval(() => {
      const due = Math.min(total, Math.round((rate * (performance.now() - t0)) / 1000));
      const now = Date.now();
      for (; sent < due; sent++) batchers[sent % batchers.length]?.push(benchEvent(`${prefix}${sent}`, sent, now));
      if (sent >= total) {
        clearInterval(tick);
        resolve();
      }
    }, 10);
  });
  await Promise.all(batchers.map((b) => b.stop()));
  const dropped = batchers.reduce((n, b) => n + b.dropped, 0);
  process.send({ type: 'done', events: sent - dropped, seconds: (performance.now() - t0) / 1000 }, () =>
    process.exit(0),
  );
}

/** Entries packed once, added at `rate` events/s (in whole entries, one pipeline per 10 ms tick). */
async function prepacked(url: string, rate: number, seconds: number, prefix: string): Promise<never> {
  const PER_ENTRY = 500;
  const redis = new Redis(url);
  const now = Date.now();
  const entries = Array.from({ length: 20 }, (_, k) =>
    xaddArgs(
      Array.from({ length: PER_ENTRY }, (_, i) => benchEvent(`${prefix}${k}-${i}`, k * PER_ENTRY + i, now)),
      100_000_000,
    ),
  );
  process.send?.({ type: 'listening', port: 0 });
  const t0 = performance.now();
  const total = Math.round((rate * seconds) / PER_ENTRY);
  let sent = 0;
  while (sent < total) {
    const due = Math.min(total, Math.round((rate * (performance.now() - t0)) / 1000 / PER_ENTRY));
    if (due > sent) {
      const pipeline = redis.pipeline();
      for (; sent < due; sent++) pipeline.xadd(...(entries[sent % entries.length] ?? entries[0]!));
      await pipeline.exec();
    } else await new Promise((r) => setTimeout(r, 10));
  }
  process.send?.({ type: 'done', events: sent * PER_ENTRY, seconds: (performance.now() - t0) / 1000 }, () =>
    process.exit(0),
  );
  return new Promise<never>(() => undefined);
}
