// `pnpm bench:pipeline`: events per second from the Redis stream into ClickHouse (embedded chDB) through the
// real ingester, drained from a full stream and at a steady offered rate (with the lag: the age of the oldest
// event not yet in ClickHouse, sampled), and the time of statistics queries over 10 million events. Writes
// bench/results/pipeline.{json,md} and the plots pipeline-rate.svg and pipeline-lag.svg.
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { INGEST_GROUP, Ingester } from '@adnet/admin/ingester';
import { createLogger } from '@adnet/admin/log';
import { migrate } from '@adnet/admin/migrations';
import { buildStatsQuery } from '@adnet/admin/stats-query';
import { EventBatcher } from '@adnet/engine/event-batcher';
import { envSchema } from '@adnet/schemas/config';
import { EVENT_STREAM } from '@adnet/schemas/redis-keys';
import { statsQuerySchema } from '@adnet/schemas/stats';
import { createClient } from '@clickhouse/client';
import { createChdbConnection } from 'chdb/connection';
import { Redis } from 'ioredis';
import { child } from './child.ts';
import { startBenchRedis } from './local-redis.ts';
import { benchEvent } from './pipeline-generator.ts';
import { cpuMs } from './proc-stats.ts';
import { writePlots } from './plots.ts';
import { pageHeader } from './results-page.ts';

const EVENTS = Number(process.env.BENCH_PIPELINE_EVENTS ?? 500_000);
const BIG = Number(process.env.BENCH_QUERY_EVENTS ?? 10_000_000);
const RATE = Number(process.env.BENCH_PIPELINE_RATE ?? 200_000);
const SECONDS = Number(process.env.BENCH_PIPELINE_SECONDS ?? 20);
const BATCH_ROWS = Number(process.env.BENCH_INGEST_BATCH_ROWS ?? envSchema.shape.INGEST_BATCH_ROWS.parse(undefined));
const FLUSH_MS = Number(process.env.BENCH_INGEST_FLUSH_MS ?? 1_000);
// `rowbinary` (the product's way with embedded chDB: each batch a RowBinary file chDB reads) or `json` (rows
// in the insert's body, the way to a ClickHouse server), to compare the two on the same machine.
const WAY = process.env.BENCH_INGEST_WAY === 'json' ? 'json' : 'rowbinary';
// `worker` (default: entries decoded and RowBinary bodies written on the ingester's worker thread) or `main`
// (on its main thread, as before), the in-process A/B of that step.
const BUILD = process.env.BENCH_INGEST_BUILD === 'main' ? 'main' : 'worker';
const SAMPLE_MS = 250;

// The machine is shared: its load average at the start and the end go into the results.
const loadAtStart = loadavg()[0] ?? 0;
const local = await startBenchRedis('adnet-pipeline-');
const { url, dir, client: redis } = local;
type ClientConnection = NonNullable<Parameters<typeof createClient>[0]>['connection'];
const clickhouse = createClient({
  connection: createChdbConnection({ path: join(dir, 'ch') }) as unknown as ClientConnection,
});
await migrate(clickhouse, { database: 'adnet', eventTtlDays: 3650 });

// 1. Stream -> ClickHouse: the engines' batcher writes, the ingester drains.
const batcher = new EventBatcher({ redis, flushMs: 50, batchMax: 500, bufferMax: 2_000_000, streamMaxLen: 10_000_000 });
const now = Date.now();
// Over the last day: the hourly view sums them into many hours, as it would a day's traffic.
for (let i = 0; i < EVENTS; i++) batcher.push(benchEvent(`e${i}`, i, now - (i % 86_400) * 1000));
await batcher.stop();
const ingester = new Ingester({
  redis: new Redis(url, { enableAutoPipelining: false }),
  clickhouse,
  database: 'adnet',
  log: createLogger('warn'),
  batchRows: BATCH_ROWS,
  flushMs: FLUSH_MS,
  ...(WAY === 'rowbinary' ? { stagingDir: join(dir, 'ingest') } : {}),
  buildInWorker: BUILD === 'worker',
});
const t0 = performance.now();
const cpu0 = process.cpuUsage();
const redisCpu0 = cpuMs(local.pid);
await ingester.start();
for (;;) {
  const b = await ingester.backlog();
  if (b.lag === 0 && b.pending === 0) break;
  await new Promise((r) => setTimeout(r, 50));
}
const ingestMs = performance.now() - t0;
const cpu = process.cpuUsage(cpu0);
// This process's CPU (the ingester and chDB's threads) and Redis's, per event drained.
const cpuUsPerEvent = (cpu.user + cpu.system) / EVENTS;
const redisCpuUsPerEvent = ((cpuMs(local.pid) - redisCpu0) * 1000) / EVENTS;

// 2. A steady offered rate: a generator process writes as engines do while the ingester drains; every
// SAMPLE_MS the age of the oldest event not yet in ClickHouse (its entry's stream id is the time it was
// written; the engine's batcher held it up to 50 ms before) and the events inserted so far.
const GENERATOR = process.env.BENCH_PIPELINE_GENERATOR === 'prepacked' ? 'prepacked' : 'batchers';
const generator = await child('bench/src/pipeline-generator.ts', {
  REDIS_URL: url,
  RATE: String(RATE),
  SECONDS: String(SECONDS),
  GENERATOR,
});
const generated = new Promise<{ events: number; seconds: number }>((resolve) =>
  generator.proc.on('message', (m: { type?: string; events?: number; seconds?: number }) => {
    if (m.type === 'done') resolve({ events: m.events ?? 0, seconds: m.seconds ?? 0 });
  }),
);
const samples: { t: number; lagMs: number; inserted: number }[] = [];
const s0 = performance.now();
const steadyCpu0 = process.cpuUsage();
let steadyCpuUs = 0;
const inserted0 = ingester.inserted;
let generating = true;
void generated.then(() => {
  generating = false;
  const c = process.cpuUsage(steadyCpu0);
  steadyCpuUs = c.user + c.system;
});
for (;;) {
  const lagMs = await oldestUnsavedAgeMs(redis);
  samples.push({ t: (performance.now() - s0) / 1000, lagMs, inserted: ingester.inserted - inserted0 });
  if (!generating && lagMs === 0) break;
  // Behind the offered rate, the backlog drains after the generator stops: wait for it (within reason).
  if (performance.now() - s0 > (SECONDS + 900) * 1000) break;
  await new Promise((r) => setTimeout(r, SAMPLE_MS));
}
const gen = await generated;
await ingester.stop();
const steadyWindow = samples.filter((x) => x.t <= gen.seconds);
const lags = steadyWindow.map((x) => x.lagMs).sort((a, b) => a - b);
const pct = (p: number) => lags[Math.min(lags.length - 1, Math.floor((p / 100) * lags.length))] ?? 0;
const lastInWindow = steadyWindow.at(-1);
const steady = {
  offeredRate: RATE,
  generatedEvents: gen.events,
  generatedRate: Math.round(gen.events / gen.seconds),
  seconds: Math.round(gen.seconds * 10) / 10,
  ingestedRateWhileOffered: lastInWindow ? Math.round(lastInWindow.inserted / lastInWindow.t) : 0,
  // This process's CPU (ingester and chDB) while the generator wrote, per event ingested meanwhile.
  cpuUsPerEventWhileOffered: lastInWindow?.inserted ? Math.round((steadyCpuUs / lastInWindow.inserted) * 100) / 100 : 0,
  drainedAfterMs: Math.round(((samples.at(-1)?.t ?? 0) - gen.seconds) * 1000),
  lagMs: { p50: pct(50), p99: pct(99), max: lags.at(-1) ?? 0 },
  samples: samples.map((x, i) => ({
    t: Math.round(x.t * 100) / 100,
    lagMs: x.lagMs,
    eventsPerSecond: i
      ? Math.round((x.inserted - (samples[i - 1]?.inserted ?? 0)) / (x.t - (samples[i - 1]?.t ?? 0)))
      : 0,
  })),
};
const counted = Number(
  (
    (
      await (
        await clickhouse.query({ query: 'SELECT count() AS n FROM adnet.events', format: 'JSONEachRow' })
      ).json<{ n: number }>()
    )[0] ?? { n: 0 }
  ).n,
);
const expected = EVENTS + gen.events;

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
  loadAverage: {
    start: Math.round(loadAtStart * 10) / 10,
    end: Math.round((loadavg()[0] ?? 0) * 10) / 10,
    cores: cpus().length,
  },
  ingester: { batchRows: BATCH_ROWS, flushMs: FLUSH_MS, way: WAY, build: BUILD },
  generator: GENERATOR,
  pipeline: {
    events: EVENTS,
    ingestMs: Math.round(ingestMs),
    eventsPerSecond: Math.round(EVENTS / (ingestMs / 1000)),
    cpuUsPerEvent: Math.round(cpuUsPerEvent * 100) / 100,
    redisCpuUsPerEvent: Math.round(redisCpuUsPerEvent * 100) / 100,
  },
  steady,
  counted,
  expected,
  statistics: { events: BIG, generateAndAggregateMs: Math.round(genMs), queries: timings },
};
const out = fileURLToPath(new URL('../results', import.meta.url));
mkdirSync(out, { recursive: true });
writeFileSync(join(out, 'pipeline.json'), JSON.stringify(result, null, 2) + '\n');
const md = [
  `# Event pipeline and statistics (${result.date})`,
  '',
  ...pageHeader('npx -y pnpm@10.34.8 bench:pipeline'),
  '',
  `Stream -> ingester -> ClickHouse (embedded chDB), ingester batches of ${BATCH_ROWS} rows or ${FLUSH_MS} ms, ${WAY === 'rowbinary' ? `each a RowBinary file chDB reads, built on ${BUILD === 'worker' ? 'a worker thread' : 'the main thread'}` : 'rows in the insert body (JSONCompactEachRow)'}.`,
  '',
  `Load average (1 min) ${result.loadAverage.start} at the start, ${result.loadAverage.end} at the end, on ${result.loadAverage.cores} cores.`,
  '',
  `Drained from a full stream: ${EVENTS} events in ${result.pipeline.ingestMs} ms = **${result.pipeline.eventsPerSecond} events/s**, ${result.pipeline.cpuUsPerEvent} us of CPU per event in the ingester's process (chDB included) and ${result.pipeline.redisCpuUsPerEvent} us in Redis.`,
  '',
  `At a steady offered rate of ${RATE} events/s for ${SECONDS} s (a generator process ${GENERATOR === 'prepacked' ? 'adding entries packed beforehand' : 'with 4 engine batchers'}; it wrote ${steady.generatedRate} events/s): ingested **${steady.ingestedRateWhileOffered} events/s** while offered (${steady.cpuUsPerEventWhileOffered} us of CPU per event in the ingester's process), lag (age of the oldest event not yet in ClickHouse, sampled every ${SAMPLE_MS} ms) **p50 ${steady.lagMs.p50} ms, p99 ${steady.lagMs.p99} ms**, max ${steady.lagMs.max} ms; drained ${steady.drainedAfterMs} ms after the generator stopped.`,
  '',
  '![Events into ClickHouse against the offered rate, over time](pipeline-rate.svg)',
  '',
  '![The oldest event not yet in ClickHouse, over time](pipeline-lag.svg)',
  '',
  `Counted in ClickHouse: ${counted} of ${expected} events written (${counted === expected ? 'exact' : 'NOT exact'}).`,
  '',
  `Statistics over ${BIG} events (30 days, 10 000 campaigns; generated in ClickHouse and aggregated by the hourly view in ${result.statistics.generateAndAggregateMs} ms):`,
  '',
  '| group_by | scope | time ms | rows |',
  '|---|---|---|---|',
  ...Object.entries(timings).map(
    ([g, t]) => `| ${g} | ${g === 'campaign,geo' ? 'all advertisers' : 'one advertiser'} | ${t.ms} | ${t.rows} |`,
  ),
  '',
].join('\n');
writeFileSync(join(out, 'pipeline.md'), md);
writePlots(out);
process.stdout.write(md);
process.exit(counted === expected ? 0 : 1);

/** How long the oldest event not yet in ClickHouse has waited: the oldest entry pending at the ingest group, else the first one not delivered. */
async function oldestUnsavedAgeMs(r: Redis): Promise<number> {
  const [count, smallest] = (await r.xpending(EVENT_STREAM, INGEST_GROUP)) as [
    number,
    string | null,
    string | null,
    unknown,
  ];
  let id = count > 0 ? smallest : null;
  if (!id) {
    const groups = (await r.xinfo('GROUPS', EVENT_STREAM)) as unknown[][];
    const row = groups
      .map((g) => Object.fromEntries(Array.from({ length: g.length / 2 }, (_, i) => [String(g[2 * i]), g[2 * i + 1]])))
      .find((g) => g.name === INGEST_GROUP);
    const delivered = typeof row?.['last-delivered-id'] === 'string' ? row['last-delivered-id'] : '0-0';
    const [next] = await r.xrange(EVENT_STREAM, `(${delivered}`, '+', 'COUNT', 1);
    id = next?.[0] ?? null;
  }
  return id ? Math.max(0, Date.now() - Number(id.split('-')[0])) : 0;
}
