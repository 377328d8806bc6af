// `tsx bench/src/ab-rotation-gc.ts <before-checkout> <after-checkout> [campaigns]`: the collector's cost of the
// creative rotation's refresh (engine/src/rotation/creative-rotation.ts) of two trees, one after the other in
// fresh processes' worth of state: 100 000 optimizing campaigns of 3 creatives, none served yet (counts empty in
// a bench Redis), as the bench world. Per refresh after two warm-up ones: wall time, collections (how many are
// not young-generation), their total and longest pause. What a refresh keeps alive across its pipelines is
// copied by every young-generation collection that runs meanwhile.
import { resolve } from 'node:path';
import { PerformanceObserver, constants } from 'node:perf_hooks';
import type { PerformanceEntry } from 'node:perf_hooks';
import type * as Rotation from '../../engine/src/rotation/creative-rotation.ts';
import type { EngineIndex } from '../../engine/src/index/engine-index.ts';
import { startBenchRedis } from './local-redis.ts';

const CAMPAIGNS = Number(process.argv[4] ?? 100_000);
const REFRESHES = 6;

const creatives = new Map<number, unknown>();
const campaigns = new Map<number, unknown>();
for (let c = 1; c <= CAMPAIGNS; c++) {
  campaigns.set(c, { id: c, rotation: 'optimize' });
  for (let k = 0; k < 3; k++) creatives.set(c * 3 + k, { id: c * 3 + k, campaign_id: c, status: 'approved', weight: 1 });
}
const index = { creatives, campaigns } as unknown as EngineIndex;

let gc = { ms: 0, max: 0, count: 0, notYoung: 0 };
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) {
    gc.ms += e.duration;
    gc.max = Math.max(gc.max, e.duration);
    gc.count++;
    if ((e as PerformanceEntry & { detail?: { kind?: number } }).detail?.kind !== constants.NODE_PERFORMANCE_GC_MINOR) gc.notYoung++;
  }
}).observe({ entryTypes: ['gc'] });

const redis = await startBenchRedis('adnet-ab-rotation-');
for (const [label, root] of [
  ['before', process.argv[2] ?? '.'],
  ['after', process.argv[3] ?? '.'],
] as const) {
  const m = (await import(`${resolve(root)}/engine/src/rotation/creative-rotation.ts`)) as typeof Rotation;
  const rotation = new m.CreativeRotation({ redis: redis.client, index: () => index });
  for (let i = 0; i < REFRESHES + 2; i++) {
    gc = { ms: 0, max: 0, count: 0, notYoung: 0 };
    const t = performance.now();
    await rotation.refresh();
    await new Promise((r) => setTimeout(r, 20));
    if (i >= 2)
      console.log(
        `${label}: refresh ${(performance.now() - t).toFixed(0)} ms, ${gc.count} collections (${gc.notYoung} not young), ${gc.ms.toFixed(0)} ms, longest ${gc.max.toFixed(1)} ms`,
      );
  }
}
await redis.stop();
process.exit(0);
