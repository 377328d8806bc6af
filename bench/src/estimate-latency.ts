// The traffic estimate's latency (POST /api/adv/estimate; docs/events-and-stats.md, "Traffic estimate"): a week
// of recorded traffic (`BENCH_EVENTS`, default 500 000 events over 200 zones, 50 sites, 20 countries, every
// device, OS and browser) inserted into embedded chDB as migrated, then `BENCH_ESTIMATES` (default 300)
// estimates of random targetings, one after another as a form typing would ask: the procedure's query over
// `estimate_hourly` and its arithmetic, in process (the HTTP door and the sign-in check add about a
// millisecond; the zones' formats are read from Redis at most every 30 s).
// `npx tsx bench/src/estimate-latency.ts`
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { openClickHouse } from '@adnet/admin/clickhouse';
import { buildEstimateQuery, toMatchedTraffic } from '@adnet/admin/estimate-query';
import type { EstimateScope } from '@adnet/admin/estimate-query';
import { toRow } from '@adnet/admin/event-rows';
import { migrate } from '@adnet/admin/migrations';
import { estimateTraffic } from '@adnet/admin/traffic-estimate';
import type { EngineEvent } from '@adnet/schemas/events';
import { rng } from './corpus.ts';

const EVENTS = Number(process.env.BENCH_EVENTS ?? 500_000);
const ESTIMATES = Number(process.env.BENCH_ESTIMATES ?? 300);
const COUNTRIES = [
  'us',
  'de',
  'fr',
  'gb',
  'it',
  'es',
  'br',
  'in',
  'id',
  'mx',
  'ca',
  'au',
  'jp',
  'pl',
  'nl',
  'tr',
  'ru',
  'ua',
  'za',
  'ng',
];
const DEVICES = ['mobile', 'desktop', 'tablet'];
const OSES = ['android', 'ios', 'windows', 'macos', 'linux'];
const BROWSERS = ['chrome', 'safari', 'firefox', 'edge', 'samsung'];

// The same week every run.
const rnd = rng(38);
const pick = <T>(from: readonly T[]): T => from[Math.floor(rnd() * from.length)] as T;
const some = <T>(from: readonly T[]): T[] => (rnd() < 0.4 ? [] : from.filter(() => rnd() < 0.3));

const dir = mkdtempSync(join(tmpdir(), 'estimate-latency-'));
const ch = await openClickHouse(undefined, dir);
await migrate(ch, { database: 'adnet', eventTtlDays: 90 });

const now = Date.now();
const started = performance.now();
for (let done = 0; done < EVENTS;) {
  const batch: EngineEvent[] = [];
  for (; batch.length < 100_000 && done < EVENTS; done++) {
    const zone = 1 + Math.floor(rnd() * 200);
    const where = {
      publisher_id: 1,
      site_id: 1 + (zone % 50),
      zone_id: zone,
      source: `site-${zone % 50}.example`,
      country: pick(COUNTRIES),
      device: pick(DEVICES),
      os: pick(OSES),
      browser: pick(BROWSERS),
    };
    const ts = now - Math.floor(rnd() * 7 * 86_400_000);
    const id = `b${done}`;
    const price = Math.round(100_000 * Math.exp(0.6 * (rnd() + rnd() + rnd() - 1.5) * 2));
    batch.push(
      rnd() < 0.75
        ? {
            id,
            type: 'impression',
            ts,
            engine: 'e',
            ...where,
            campaign_id: 1,
            creative_id: 1,
            advertiser_id: 1,
            bid_id: id,
            price_micro_cents: price,
            charge_nano: price * 10,
          }
        : { id, type: 'nobid', ts, engine: 'e', ...where, reason: 'no_candidates' },
    );
  }
  await ch.insert({ table: 'adnet.events', values: batch.map(toRow), format: 'JSONEachRow' });
}
const rows = await (
  await ch.query({ query: 'SELECT count() AS n FROM adnet.estimate_hourly', format: 'JSONEachRow' })
).json<{ n: string }>();
console.log(
  `${EVENTS} events inserted in ${((performance.now() - started) / 1000).toFixed(1)} s; estimate_hourly: ${rows[0]?.n} rows`,
);

const zones = Array.from({ length: 200 }, (_, i) => i + 1);
const times: number[] = [];
// CPU of this process, chDB's threads included: what an estimate costs whatever else the machine runs.
const cpu: number[] = [];
// The first few warm chDB's caches; a form asks again and again.
for (let i = -5; i < ESTIMATES; i++) {
  const scope: EstimateScope = {
    countries: some(COUNTRIES),
    devices: some(DEVICES),
    oses: some(OSES),
    browsers: some(BROWSERS),
    // A format's zones: about half of them.
    formatZones: zones.filter((z) => z % 2 === i % 2),
    exchange: true,
    slots: rnd() < 0.3 ? Array.from({ length: 60 }, (_, h) => h * 2) : undefined,
    timezone: pick(['UTC', 'Europe/Berlin', 'America/New_York']),
  };
  const t0 = performance.now();
  const c0 = process.cpuUsage();
  const { sql, params } = buildEstimateQuery('adnet', scope, { now: new Date(), days: 7 });
  const found = await (
    await ch.query({ query: sql, query_params: params, format: 'JSONEachRow' })
  ).json<Record<string, string | number>>();
  estimateTraffic(toMatchedTraffic(found, 7), {
    bidType: 'cpm',
    bidMicroCents: 120_000,
    dailyBudgetCents: 10_000,
    ctr: 0.004,
  });
  if (i >= 0) {
    times.push(performance.now() - t0);
    const used = process.cpuUsage(c0);
    cpu.push((used.user + used.system) / 1000);
  }
}
const quantiles = (xs: number[]) => {
  xs.sort((a, b) => a - b);
  const at = (q: number) => (xs[Math.min(xs.length - 1, Math.floor(q * xs.length))] ?? 0).toFixed(1);
  return `p50 ${at(0.5)} ms, p95 ${at(0.95)} ms, max ${at(1)} ms`;
};
console.log(`estimate latency over ${ESTIMATES} estimates: ${quantiles(times)}; CPU ${quantiles(cpu)}`);
await ch.close();
rmSync(dir, { recursive: true, force: true });
