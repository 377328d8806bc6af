// `pnpm bench:pipeline`: events per second from the Redis stream into ClickHouse (embedded chDB) through the
// real ingester, and the time of statistics queries over 10 million events. Writes bench/results/pipeline.{json,md}.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ingester } from '@adnet/admin/ingester';
import { createLogger } from '@adnet/admin/log';
import { migrate } from '@adnet/admin/migrations';
import { buildStatsQuery } from '@adnet/admin/stats-query';
import { EventBatcher } from '@adnet/engine/event-batcher';
import type { EngineEvent } from '@adnet/schemas/events';
import { statsQuerySchema } from '@adnet/schemas/stats';
import { createClient } from '@clickhouse/client';
import { createChdbConnection } from 'chdb/connection';
import { Redis } from 'ioredis';
import { startBenchRedis } from './local-redis.ts';

const EVENTS = Number(process.env.BENCH_PIPELINE_EVENTS ?? 500_000);
const BIG = Number(process.env.BENCH_QUERY_EVENTS ?? 10_000_000);

const local = await startBenchRedis('adnet-pipeline-');
const { url, dir, client: redis } = local;
type ClientConnection = NonNullable<Parameters<typeof createClient>[0]>['connection'];
const clickhouse = createClient({ connection: createChdbConnection({ path: join(dir, 'ch') }) as unknown as ClientConnection });
await migrate(clickhouse, { database: 'adnet', eventTtlDays: 3650 });

// 1. Stream -> ClickHouse: the engines' batcher writes, the ingester drains.
const batcher = new EventBatcher({ redis, flushMs: 50, batchMax: 500, bufferMax: 2_000_000, streamMaxLen: 10_000_000 });
const now = Date.now();
for (let i = 0; i < EVENTS; i++) {
  const common = {
    id: `e${i}`,
    ts: now - (i % 86_400) * 1000,
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
  const event: EngineEvent = i % 10 === 0 ? { type: 'bid', auction_id: `a${i}`, imp_id: '1', ...common } : { type: 'win', charge_nano: 1_500_000, ...common };
  batcher.push(event);
}
await batcher.stop();
const ingester = new Ingester({
  redis: new Redis(url, { enableAutoPipelining: false }),
  clickhouse,
  database: 'adnet',
  log: createLogger('warn'),
  batchRows: 20_000,
  flushMs: 1_000,
});
const t0 = performance.now();
await ingester.start();
for (;;) {
  const b = await ingester.backlog();
  if (b.lag === 0 && b.pending === 0) break;
  await new Promise((r) => setTimeout(r, 50));
}
const ingestMs = performance.now() - t0;
await ingester.stop();
const counted = Number(
  ((await (await clickhouse.query({ query: 'SELECT count() AS n FROM adnet.events', format: 'JSONEachRow' })).json<{ n: number }>())[0] ?? { n: 0 }).n,
);

// 2. Statistics over 10 million events, generated inside ClickHouse and aggregated by the hourly view.
const gen0 = performance.now();
await clickhouse.command({
  query: `INSERT INTO adnet.events (id, type, ts, engine, campaign_id, creative_id, advertiser_id, charge_nano, country, device)
    SELECT concat('g', toString(number)), if(number % 20 = 0, 'click', 'win'), now64(3) - toIntervalSecond(number % (30 * 86400)), 'gen',
      1 + number % 10000, 1 + number % 30000, 1 + number % 500, 1500000, ['us','de','fr','br','jp'][1 + number % 5], ['desktop','mobile','tablet'][1 + number % 3]
    FROM numbers(${BIG})`,
});
const genMs = performance.now() - gen0;
const to = new Date().toISOString().slice(0, 10);
const from = new Date(Date.now() - 30 * 86_400_000).toISOString().slice(0, 10);
const queries: Record<string, string> = { day: 'day', 'campaign,geo': 'campaign,geo', 'day,device': 'day,device' };
const timings: Record<string, { ms: number; rows: number }> = {};
for (const [name, group_by] of Object.entries(queries)) {
  const q = statsQuerySchema.parse({ from, to, group_by });
  const { sql, params } = buildStatsQuery('adnet', q, name === 'campaign,geo' ? {} : { advertiserId: 7 });
  const t = performance.now();
  const rows = await (await clickhouse.query({ query: sql, query_params: params, format: 'JSONEachRow' })).json();
  timings[name] = { ms: Math.round((performance.now() - t) * 10) / 10, rows: rows.length };
}

await clickhouse.close();
await local.stop();

const result = {
  date: new Date().toISOString(),
  pipeline: { events: EVENTS, counted, ingestMs: Math.round(ingestMs), eventsPerSecond: Math.round(EVENTS / (ingestMs / 1000)) },
  statistics: { events: BIG, generateAndAggregateMs: Math.round(genMs), queries: timings },
};
const out = fileURLToPath(new URL('../results', import.meta.url));
mkdirSync(out, { recursive: true });
writeFileSync(join(out, 'pipeline.json'), JSON.stringify(result, null, 2) + '\n');
const md = [
  `# Event pipeline and statistics (${result.date})`,
  '',
  `Stream -> ingester -> ClickHouse (embedded chDB): ${EVENTS} events in ${result.pipeline.ingestMs} ms = **${result.pipeline.eventsPerSecond} events/s**; counted in ClickHouse: ${counted} (exact).`,
  '',
  `Statistics over ${BIG} events (30 days, 10 000 campaigns; generated in ClickHouse and aggregated by the hourly view in ${result.statistics.generateAndAggregateMs} ms):`,
  '',
  '| group_by | scope | time ms | rows |',
  '|---|---|---|---|',
  ...Object.entries(timings).map(([g, t]) => `| ${g} | ${g === 'campaign,geo' ? 'all advertisers' : 'one advertiser'} | ${t.ms} | ${t.rows} |`),
  '',
].join('\n');
writeFileSync(join(out, 'pipeline.md'), md);
process.stdout.write(md);
process.exit(counted === EVENTS ? 0 : 1);
