// `tsx bench/src/ab-idle-scan.ts <before-checkout> <after-checkout> [campaigns]`: the budget's idle scan
// (engine/src/budget/budget-slices.ts, `flush` -> `releaseIdle`) of two trees, in one process, over a pool per
// campaign (100 000 by default, as an engine serving the bench world holds after its prewarm) and one per
// advertiser. Each flush comes 10 s of the budget's clock after the last, so both trees scan every time
// (an engine flushes every 200 ms); nothing is idle long enough to be released (25 flushes: 250 s < 5 min). Reported per scanning flush:
// the longest time the event loop was held (the gap between two turns of a setImmediate probe) and the
// CPU it cost, alternated rounds. With AB_IDLE_RELEASE=1 every pool is idle instead (each flush comes 6 min after
// a fresh prewarm), so the scan releases all of them: one re-base script call per pool.
import { resolve } from 'node:path';
import { setImmediate as turn } from 'node:timers/promises';
import type { Candidate } from '@adnet/engine/candidate';
import type * as Slices from '@adnet/engine/budget-slices';
import { clockUs } from './ab-trees.ts';
import { startBenchRedis } from './local-redis.ts';

const CAMPAIGNS = Number(process.argv[4] ?? 100_000);
const FLUSHES = 5;
const ROUNDS = Number(process.env.AB_ROUNDS ?? 5);
const RELEASE = process.env.AB_IDLE_RELEASE === '1';

const load = (root: string) => import(`${resolve(root)}/engine/src/budget/budget-slices.ts`) as Promise<typeof Slices>;
const trees = await Promise.all([load(process.argv[2] ?? '.'), load(process.argv[3] ?? '.')]);
const redis = await startBenchRedis('adnet-ab-idle-');

const candidates = Array.from(
  { length: CAMPAIGNS },
  (_, i) =>
    ({
      campaignId: i + 1,
      advertiserId: (i % 500) + 1,
      dailyBudgetCents: 1_000_000_00,
      totalBudgetCents: -1,
    }) as unknown as Candidate,
);
const budgets = await Promise.all(
  trees.map(async (m, k) => {
    let clock = Date.now();
    const budget = new m.BudgetSlices({ redis: redis.client, engineId: `ab-${k}`, sliceCents: 100, now: () => clock });
    budget.prewarm(candidates);
    await redis.client.ping(); // every reservation above was sent before this
    await new Promise((r) => setTimeout(r, 500));
    return {
      budget,
      step: async () => {
        if (!RELEASE) return void (clock += 10_000);
        budget.prewarm(candidates);
        await redis.client.ping();
        await new Promise((r) => setTimeout(r, 500));
        clock += 6 * 60_000;
      },
    };
  }),
);

async function block(b: (typeof budgets)[number]): Promise<{ holdMs: number; cpuUs: number }> {
  let holdMs = 0;
  let cpuUs = 0;
  for (let i = 0; i < FLUSHES; i++) {
    await b.step();
    let last = performance.now();
    let done = false;
    const probe = (async () => {
      while (!done) {
        await turn();
        const now = performance.now();
        holdMs = Math.max(holdMs, now - last);
        last = now;
      }
    })();
    const t = clockUs();
    await b.budget.flush();
    cpuUs += clockUs() - t;
    done = true;
    await probe;
  }
  return { holdMs, cpuUs: cpuUs / FLUSHES };
}

const rows: string[] = [];
for (let r = 0; r < ROUNDS; r++) {
  for (const [k, b] of budgets.entries()) {
    const { holdMs, cpuUs } = await block(b);
    rows.push(
      `round ${r + 1} ${k === 0 ? 'before' : 'after '}: longest hold ${holdMs.toFixed(2)} ms, CPU per scanning flush ${(cpuUs / 1000).toFixed(2)} ms`,
    );
  }
}
console.log(`${CAMPAIGNS} campaign pools, 500 advertiser pools, ${FLUSHES} flushes per block\n${rows.join('\n')}`);
await redis.stop();
process.exit(0);
