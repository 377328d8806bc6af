// The shared loop of the `ab-*-gc.ts` benches: one periodic pass (a refresh, a tick) of two trees, one tree after
// the other in the same process, each run `passes + 2` times; per pass after two warm-up ones: wall time,
// collections (how many are not young-generation), their total and longest pause.
import { resolve } from 'node:path';
import { PerformanceObserver, constants } from 'node:perf_hooks';
import type { PerformanceEntry } from 'node:perf_hooks';
import type { Redis } from 'ioredis';
import { startBenchRedis } from './local-redis.ts';

export interface PassBench<M> {
  /** The module of each tree, from the tree's root. */
  module: string;
  /** What one pass is called in the output. */
  noun: string;
  redisPrefix: string;
  /** Passes measured after the two warm-up ones. */
  passes?: number;
  /** One instance of the tree's code; the pass it returns is awaited each time. */
  start: (m: M, redis: Redis) => () => Promise<void>;
}

/** The trees are the first two arguments of the command line (`.` when missing). */
export async function comparePasses<M>(b: PassBench<M>): Promise<void> {
  const passes = b.passes ?? 6;
  let gc = { ms: 0, max: 0, count: 0, notYoung: 0 };
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      gc.ms += e.duration;
      gc.max = Math.max(gc.max, e.duration);
      gc.count++;
      if ((e as PerformanceEntry & { detail?: { kind?: number } }).detail?.kind !== constants.NODE_PERFORMANCE_GC_MINOR)
        gc.notYoung++;
    }
  }).observe({ entryTypes: ['gc'] });
  const redis = await startBenchRedis(b.redisPrefix);
  for (const [label, root] of [
    ['before', process.argv[2] ?? '.'],
    ['after', process.argv[3] ?? '.'],
  ] as const) {
    const pass = b.start((await import(`${resolve(root)}/${b.module}`)) as M, redis.client);
    for (let i = 0; i < passes + 2; i++) {
      gc = { ms: 0, max: 0, count: 0, notYoung: 0 };
      const t = performance.now();
      await pass();
      await new Promise((r) => setTimeout(r, 20));
      if (i >= 2)
        console.log(
          `${label}: ${b.noun} ${(performance.now() - t).toFixed(0)} ms, ${gc.count} collections (${gc.notYoung} not young), ${gc.ms.toFixed(0)} ms, longest ${gc.max.toFixed(1)} ms`,
        );
    }
  }
  await redis.stop();
}
