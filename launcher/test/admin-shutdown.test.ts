import { openClickHouse } from '@adnet/admin/clickhouse';
import type { EngineEvent } from '@adnet/schemas/events';
import { Redis } from 'ioredis';
import { xaddArgs } from '@adnet/schemas/wire/event-stream';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort, startRedis } from '@adnet/test-support/redis';
import { launch, stopLaunched, tempDir } from './support/launch.ts';

afterAll(stopLaunched);

const EVENTS = 60_000;
const PER_ENTRY = 100;
const CAMPAIGN = 77;

interface Backlog {
  length: number;
  lag: number;
  pending: number;
}

async function backlog(base: string): Promise<Backlog> {
  return ((await (await fetch(`${base}/readyz`)).json()) as { events: Backlog }).events;
}

describe("SIGTERM on the admin's ingester", () => {
  it('stops mid-stream without losing or doubling an event: the next start ingests the rest, each once', async () => {
    const redis = await startRedis();
    try {
      // What engines would have written: msgpack batches in the stream.
      const writer = new Redis(redis.url);
      const ts = Date.now();
      for (let i = 0; i < EVENTS; i += PER_ENTRY) {
        const batch: EngineEvent[] = Array.from({ length: PER_ENTRY }, (_, j) => ({
          id: `shutdown-${i + j}`,
          type: 'win',
          bid_id: 'b',
          partner_id: 1,
          price_micro_cents: 100_000,
          ts,
          engine: 'e1',
          campaign_id: CAMPAIGN,
          advertiser_id: 5,
          creative_id: 1,
          charge_nano: 1_000_000,
          country: 'us',
          device: 'desktop',
        }));
        await writer.xadd(...xaddArgs(batch, 10_000_000));
      }
      await writer.quit();

      const dataDir = tempDir();
      const env = {
        DATA_DIR: dataDir,
        PORT: String(await freePort()),
        REDIS_URL: redis.url,
        INGEST_BATCH_ROWS: '300',
        INGEST_FLUSH_MS: '50',
      };
      const first = await launch(env);
      let atStop: Backlog | undefined;
      for (let i = 0; i < 1_000; i++) {
        const b = await backlog(first.base);
        // Some batches in ClickHouse already, most still to come.
        if (b.lag < EVENTS / PER_ENTRY - 20) {
          atStop = b;
          break;
        }
        await new Promise((r) => setTimeout(r, 10));
      }
      first.child.kill('SIGTERM');
      expect(await first.exit).toBe(0);
      expect((atStop?.lag ?? 0) + (atStop?.pending ?? 0)).toBeGreaterThan(0);

      const second = await launch(env);
      for (let i = 0; i < 3_000; i++) {
        const b = await backlog(second.base);
        if (b.lag === 0 && b.pending === 0) break;
        await new Promise((r) => setTimeout(r, 20));
      }
      second.child.kill('SIGTERM');
      expect(await second.exit).toBe(0);

      // The product has stopped: its embedded ClickHouse folder can be opened here.
      const ch = await openClickHouse(undefined, dataDir);
      try {
        const [raw] = await (
          await ch.query({
            query: `SELECT count() AS n, uniqExact(id) AS ids FROM adnet.events WHERE campaign_id = ${CAMPAIGN}`,
            format: 'JSONEachRow',
          })
        ).json<{ n: number | string; ids: number | string }>();
        const [hourly] = await (
          await ch.query({
            query: `SELECT sum(impressions) AS n FROM adnet.stats_hourly WHERE campaign_id = ${CAMPAIGN}`,
            format: 'JSONEachRow',
          })
        ).json<{ n: number | string }>();
        expect([Number(raw?.n), Number(raw?.ids), Number(hourly?.n)]).toEqual([EVENTS, EVENTS, EVENTS]);
      } finally {
        await ch.close();
      }
    } finally {
      await redis.stop();
    }
  }, 120_000);
});
