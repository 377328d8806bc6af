// `tsx bench/src/pacer-stretch.ts [tree] [campaigns]`: the pacer's tick (engine/src/pacing/pacer.ts of the checkout at
// `tree`, this one by default) at 100 000 even-paced campaigns (the index fixtures'),
// against a bench Redis, in the cases a tick meets: the first (every campaign read), one in which nothing moved, one
// after 1 000 campaigns changed (a burst of admin changes), one with 5 000 campaigns' spend moved. Per tick: wall
// time, this process's CPU, and the longest the event loop went without a turn (a timer probe every 1 ms).
import { resolve } from 'node:path';
import { budgetDay } from '@adnet/schemas/budget-day';
import { markMoved } from '@adnet/runtime/moved-marks';
import { campaignPoolKey } from '@adnet/schemas/redis-keys';
import type { EngineIndex } from '@adnet/engine/engine-index';
import { campaignFixture } from '@adnet/engine/fixtures';
import { FULL_DELTA } from '@adnet/engine/index-update';
import type { IndexDelta } from '@adnet/engine/index-update';
import type * as Pacing from '@adnet/engine/pacer';
import { startBenchRedis } from './local-redis.ts';

const { Pacer } = (await import(`${resolve(process.argv[2] ?? '.')}/engine/src/pacing/pacer.ts`)) as typeof Pacing;
const CAMPAIGNS = Number(process.argv[3] ?? 100_000);
/** Trees from before the pacer was told of the deltas: their engine wrote the rates into new handles itself. */
type Told = {
  indexChanged?: (index: EngineIndex, delta: IndexDelta) => void;
  apply: (index: EngineIndex, only?: Iterable<number>) => void;
};
const tell = (index: EngineIndex, delta: IndexDelta): void => {
  const told = pacer as unknown as Told;
  if (told.indexChanged) told.indexChanged(index, delta);
  else told.apply(index, delta.full ? undefined : delta.campaigns);
};
const campaigns = new Map<number, ReturnType<typeof campaignFixture>>();
const paces = new Map<number, { rate: number }>();
for (let c = 1; c <= CAMPAIGNS; c++) {
  campaigns.set(c, campaignFixture({ id: c }));
  paces.set(c, { rate: 1 });
}
let index = { campaigns, paces } as unknown as EngineIndex;
const redis = await startBenchRedis('adnet-pacer-stretch-');
let clock = Date.parse(`${budgetDay(Date.now())}T08:00:00Z`);
const pacer = new Pacer(
  redis.client,
  () => index,
  () => clock,
);
tell(index, FULL_DELTA);

async function tick(label: string): Promise<void> {
  clock += 10_000;
  let longest = 0;
  let last = performance.now();
  const probe = setInterval(() => {
    const now = performance.now();
    longest = Math.max(longest, now - last);
    last = now;
  }, 1);
  const cpu = process.cpuUsage();
  const t = performance.now();
  await pacer.tick();
  const wall = performance.now() - t;
  const used = process.cpuUsage(cpu);
  longest = Math.max(longest, performance.now() - last);
  clearInterval(probe);
  console.log(
    `${label}: ${wall.toFixed(1)} ms wall, ${((used.user + used.system) / 1000).toFixed(1)} ms CPU, longest without a turn ${longest.toFixed(1)} ms`,
  );
  await new Promise((r) => setTimeout(r, 50));
}

await tick('first tick (reads every campaign)');
for (let i = 0; i < 3; i++) await tick('nothing moved');
// 1 000 campaigns changed (their budgets): a new index naming them.
for (let c = 1; c <= 1_000; c++) campaigns.set(c * 7, campaignFixture({ id: c * 7, daily_budget_cents: 5_000 }));
index = { ...index };
tell(index, { full: false, campaigns: new Set(Array.from({ length: 1_000 }, (_, i) => (i + 1) * 7)) });
await tick('1 000 campaigns changed');
await tick('nothing moved');
// 5 000 campaigns spent.
const day = budgetDay(clock);
const spent = Array.from({ length: 5_000 }, (_, i) => (i + 1) * 13);
const p = redis.client.pipeline();
for (const c of spent) p.hincrby(campaignPoolKey(c, day), 'spent', 1_000_000);
await p.exec();
await markMoved(redis.client, 'spent', spent, clock);
await tick('5 000 campaigns spent');
await tick('after (those 5 000 stepped until at rest)');
for (let i = 0; i < 2; i++) await tick('nothing moved');
await redis.stop();
process.exit(0);
