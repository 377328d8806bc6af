// `AB_CLOCK=cpu tsx bench/src/ab-counters.ts <before-checkout> <after-checkout>`: the Redis work of the widget's
// beacon and click paths (engine/src/store/counters.ts: the once-only mark of every /b and /c, the click's
// per-fingerprint minute counter and its record for conversions) of two trees, in one process against one throwaway Redis. 64 "requests" run
// at once, as wrk's 64 connections do; each round times a block of each tree in turn, and reports this
// process's CPU per request and the Redis server's (its process shares the machine's cores with the engine).
import { Redis } from 'ioredis';
import type * as Counters from '@adnet/engine/counters';
import { clockUs } from './ab-trees.ts';
import { startBenchRedis } from './local-redis.ts';
import { cpuMs } from './proc-stats.ts';

const CONCURRENT = 64;
const RECORD = {
  campaign_id: 17,
  creative_id: 51,
  advertiser_id: 3,
  publisher_id: 9,
  site_id: 1,
  zone_id: 1,
  country: 'us',
  device: 'desktop',
  os: 'linux',
  browser: 'chrome',
  invalid: false,
};
const PER_BLOCK = Number(process.env.AB_REQUESTS ?? 30_000);
const ROUNDS = Number(process.env.AB_ROUNDS ?? 6);

const load = (root: string) => import(`${root}/engine/src/store/counters.ts`) as Promise<typeof Counters>;
const [before, after] = await Promise.all([load(process.argv[2] ?? '.'), load(process.argv[3] ?? '.')]);
const local = await startBenchRedis('adnet-ab-counters-');
// As the engine connects (engine/src/engine.ts): auto-pipelining on. A client per tree, as each engine has its
// own: a tree's stores may set what its client sends past the auto-pipeline (engine/src/store/send-at-once.ts).
// AB_BEFORE_AUTOPIPELINE_ALL=1 auto-pipelines every command of the first tree's client, as before that change.
const redis = new Redis(local.url, { enableAutoPipelining: true });
const redisAfter = new Redis(local.url, { enableAutoPipelining: true });
/** What both trees' counters can do: a click's mark and flood count in one call (after) or two (before: countOnce, then clicksThisMinute). */
interface AnyCounters {
  saveClick(clickId: string, record: typeof RECORD & { ts: number }, replace: boolean): Promise<void>;
  countOnce(kind: 'imp' | 'click', id: string): Promise<boolean>;
  countClick?(id: string, fingerprint: string, nowMs: number): Promise<number | undefined>;
  clicksThisMinute?(fingerprint: string, nowMs: number): Promise<number>;
}
const trees = {
  before: new before.RedisCounters(redis) as AnyCounters,
  after: new after.RedisCounters(redisAfter) as AnyCounters,
};
if (process.env.AB_BEFORE_AUTOPIPELINE_ALL === '1') redis.options.autoPipeliningIgnoredCommands = [];

/** A click's Redis work: its fingerprint's clicks this minute when it is the ticket's first, else undefined. */
async function click(c: AnyCounters, id: string, fingerprint: string, now: number): Promise<number | undefined> {
  if (c.countClick) return c.countClick(id, fingerprint, now);
  if (!(await c.countOnce('click', id))) return undefined;
  return c.clicksThisMinute?.(fingerprint, now);
}

let serial = 0;
/** One block of `PER_BLOCK` requests: a beacon's mark, or a click's mark and its fingerprint's minute count. */
async function block(
  c: AnyCounters,
  path: 'beacon' | 'click',
): Promise<{ us: number; redisUs: number; counted: number }> {
  const start = serial;
  serial += PER_BLOCK;
  let next = start;
  let counted = 0;
  const now = Date.now();
  const t = clockUs();
  const r0 = cpuMs(local.pid);
  const one = async (): Promise<void> => {
    while (next < start + PER_BLOCK) {
      const i = next++;
      // Every tenth ticket repeats one already counted: a reload, a second beacon.
      const id = `bid-${i % 10 === 9 ? i - 1 : i}`;
      if (path === 'beacon') {
        if (await c.countOnce('imp', id)) counted++;
      } else {
        const perMinute = await click(c, id, `fingerprint${i}`, now);
        if ((perMinute ?? 99) <= 5) counted++;
        // Every click keeps its record for conversions (the first one, or the first valid one replaces it).
        await c.saveClick(`click-${id}`, { ...RECORD, ts: now }, perMinute !== undefined);
      }
    }
  };
  await Promise.all(Array.from({ length: CONCURRENT }, one));
  return { us: (clockUs() - t) / PER_BLOCK, redisUs: ((cpuMs(local.pid) - r0) * 1000) / PER_BLOCK, counted };
}

const median = (v: number[]) => [...v].sort((p, q) => p - q)[Math.floor(v.length / 2)] as number;
for (const path of ['beacon', 'click'] as const) {
  for (let w = 0; w < 2; w++) {
    await block(trees.before, path);
    await block(trees.after, path);
  }
  const rows: { b: number; a: number; rb: number; ra: number }[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const x = await block(trees.before, path);
    const y = await block(trees.after, path);
    if (x.counted !== y.counted) throw new Error(`the trees counted differently: ${x.counted} against ${y.counted}`);
    rows.push({ b: x.us, a: y.us, rb: x.redisUs, ra: y.redisUs });
    console.log(
      `${path} round ${round}: before ${x.us.toFixed(2)} us (redis ${x.redisUs.toFixed(2)})  after ${y.us.toFixed(2)} us (redis ${y.redisUs.toFixed(2)})  x${(y.us / x.us).toFixed(2)}  counted ${y.counted}`,
    );
  }
  console.log(
    `${path} median: before ${median(rows.map((r) => r.b)).toFixed(2)} us + redis ${median(rows.map((r) => r.rb)).toFixed(2)} us, ` +
      `after ${median(rows.map((r) => r.a)).toFixed(2)} us + redis ${median(rows.map((r) => r.ra)).toFixed(2)} us, ` +
      `x${median(rows.map((r) => r.a / r.b)).toFixed(2)} (median of the rounds' ratios, this process)`,
  );
}
await redis.quit();
await redisAfter.quit();
await local.stop();
