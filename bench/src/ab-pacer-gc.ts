// `tsx bench/src/ab-pacer-gc.ts <before-checkout> <after-checkout> [campaigns]`: the collector's cost of the
// pacer's tick (engine/src/pacing/pacer.ts) of two trees, one after the other: 100 000 even-paced campaigns
// (the index fixtures'), no spend yet in a bench Redis, a tick every 10 s of a simulated clock. Per tick after
// two warm-up ones: wall time, collections (how many are not young-generation), their total and longest pause.
import { resolve } from 'node:path';
import { PerformanceObserver, constants } from 'node:perf_hooks';
import type { PerformanceEntry } from 'node:perf_hooks';
import type * as Pacing from '../../engine/src/pacing/pacer.ts';
import type { EngineIndex } from '../../engine/src/index/engine-index.ts';
import { campaignFixture } from '../../engine/src/index/fixtures.ts';
import { startBenchRedis } from './local-redis.ts';

const CAMPAIGNS = Number(process.argv[4] ?? 100_000);
const TICKS = 6;

const campaigns = new Map<number, unknown>();
const paces = new Map<number, { rate: number }>();
for (let c = 1; c <= CAMPAIGNS; c++) {
  campaigns.set(c, campaignFixture({ id: c }));
  paces.set(c, { rate: 1 });
}
const index = { campaigns, paces } as unknown as EngineIndex;

let gc = { ms: 0, max: 0, count: 0, notYoung: 0 };
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) {
    gc.ms += e.duration;
    gc.max = Math.max(gc.max, e.duration);
    gc.count++;
    if ((e as PerformanceEntry & { detail?: { kind?: number } }).detail?.kind !== constants.NODE_PERFORMANCE_GC_MINOR) gc.notYoung++;
  }
}).observe({ entryTypes: ['gc'] });

const redis = await startBenchRedis('adnet-ab-pacer-');
for (const [label, root] of [
  ['before', process.argv[2] ?? '.'],
  ['after', process.argv[3] ?? '.'],
] as const) {
  const m = (await import(`${resolve(root)}/engine/src/pacing/pacer.ts`)) as typeof Pacing;
  let clock = Date.parse('2026-06-01T08:00:00Z');
  const pacer = new m.Pacer(
    redis.client,
    () => index,
    () => clock,
  );
  for (let i = 0; i < TICKS + 2; i++) {
    clock += 10_000;
    gc = { ms: 0, max: 0, count: 0, notYoung: 0 };
    const t = performance.now();
    await pacer.tick();
    await new Promise((r) => setTimeout(r, 20));
    if (i >= 2)
      console.log(
        `${label}: tick ${(performance.now() - t).toFixed(0)} ms, ${gc.count} collections (${gc.notYoung} not young), ${gc.ms.toFixed(0)} ms, longest ${gc.max.toFixed(1)} ms`,
      );
  }
}
await redis.stop();
process.exit(0);
