// Child of `bench:pipeline`: writes events into the stream at a steady rate, as engines do (several
// EventBatchers, 500 events per entry, flushed every 50 ms), for a set time; then reports how many.
import { EventBatcher } from '@adnet/engine/event-batcher';
import type { EngineEvent } from '@adnet/schemas/events';
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
  return i % 10 === 0 ? { type: 'bid', auction_id: `a${i}`, imp_id: '1', ...common } : { type: 'win', charge_nano: 1_500_000, ...common };
}

if (process.send && process.argv[1]?.endsWith('pipeline-generator.ts')) {
  const url = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
  const rate = Number(process.env.RATE ?? 200_000);
  const seconds = Number(process.env.SECONDS ?? 20);
  const prefix = process.env.ID_PREFIX ?? 's';
  const batchers = Array.from({ length: Number(process.env.BATCHERS ?? 4) }, () => {
    const b = new EventBatcher({ redis: new Redis(url), flushMs: 50, batchMax: 500, bufferMax: 5_000_000, streamMaxLen: 100_000_000 });
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
  process.send({ type: 'done', events: sent - dropped, seconds: (performance.now() - t0) / 1000 }, () => process.exit(0));
}
