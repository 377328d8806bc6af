// `tsx bench/src/burst-stretch.ts [tree] [campaigns] [bursts]`: the config mirror of the checkout at `tree` (this one by
// default) catching up with a burst of 1 000 campaign changes (bench:config's burst) at 100 000 campaigns (the bench
// world), with the engine's consumers of each index (the rotation's and the pacer's deltas, the budget's prewarm),
// against a bench Redis. The changes are committed by a child process, as the admin would, while the mirror applies
// them. Per burst: the time until the last change is in the index, this thread's CPU, the most of it between two
// turns of a 1 ms timer (a turn: what bench:config's stall split measures), the most without the collections that
// began inside the turn (the code's own stretch), and the longest collection. Runs on the engines' Node
// (`BENCH_ENGINE_NODE`, as bench:config); serialize it with the bench lock like any bench.
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { PerformanceObserver } from 'node:perf_hooks';
import { resolve } from 'node:path';
import type { StoredCampaign } from '@adnet/schemas/api';
import { compareSeq } from '@adnet/schemas/wire/change-log';
import { Redis } from 'ioredis';
import type * as Mirror from '@adnet/engine/config-mirror';
import type * as Budget from '@adnet/engine/budget-slices';
import type * as Rotation from '@adnet/engine/creative-rotation';
import type * as Pacing from '@adnet/engine/pacer';
import type * as Index from '@adnet/engine/engine-index';
import type * as Collection from '@adnet/engine/full-collection';
import type { EngineIndex } from '@adnet/engine/engine-index';
import { ConfigStore } from '@adnet/admin/config-store';
import { chooseEngineNode } from '@adnet/engine/engine-node';
import { ROOT } from './child.ts';
import { startBenchRedis } from './local-redis.ts';
import { generateWorld, seedWorld } from './world.ts';

const BURST = Number(process.env.BENCH_CONFIG_BURST ?? 1_000);
const size = (campaigns: number) => ({ campaigns, creativesPerCampaign: 3, advertisers: 500 });

if (process.argv[2] === '--commit') {
  // The admin's side: on each message, BURST campaigns' bids changed at once (as bench:config commits its burst).
  const [, , , url, campaignsArg] = process.argv;
  const world = generateWorld(size(Number(campaignsArg)));
  const redis = new Redis(url as string);
  const store = new ConfigStore(redis, 1_000_000);
  process.on('message', (m: { burst?: number }) => {
    if (m.burst === undefined) return;
    const burst = m.burst;
    void (async () => {
      const ids = Array.from(
        { length: BURST },
        (_, k) => (world.campaigns[(k * 13 + burst) % world.campaigns.length] as StoredCampaign).id,
      );
      const current = await Promise.all(ids.map((id) => store.read<Record<string, unknown>>('campaign', id)));
      process.send?.({ ready: true });
      await new Promise<void>((r) => process.once('message', () => r()));
      const seqs = await Promise.all(
        ids.map((id, k) =>
          store.commit('campaign', id, {
            expectedRev: current[k]?.rev ?? 0,
            value: {
              ...current[k]?.value,
              bid_micro_cents: Number(current[k]?.value.bid_micro_cents ?? 0) + 7,
            },
          }),
        ),
      );
      process.send?.({ last: seqs.reduce((a, b) => (compareSeq(a, b) >= 0 ? a : b)) });
    })();
  });
  process.send?.({ up: true });
} else if (process.execPath !== chooseEngineNode(process.env.BENCH_ENGINE_NODE ?? 'auto').execPath) {
  // The engine's Node: the same collector and compiler as the engine in bench:config.
  const node = chooseEngineNode(process.env.BENCH_ENGINE_NODE ?? 'auto').execPath;
  const me = spawn(
    node,
    [...(process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean), '--import', 'tsx', ...process.argv.slice(1)],
    {
      cwd: ROOT,
      stdio: 'inherit',
    },
  );
  me.on('exit', (code) => process.exit(code ?? 1));
} else {
  const tree = resolve(process.argv[2] ?? '.');
  const campaigns = Number(process.argv[3] ?? 100_000);
  const bursts = Number(process.argv[4] ?? 4);
  const load = <T>(path: string) => import(`${tree}/engine/src/${path}`) as Promise<T>;
  const { ConfigMirror } = await load<typeof Mirror>('sync/config-mirror.ts');
  const { BudgetSlices } = await load<typeof Budget>('budget/budget-slices.ts');
  const { CreativeRotation } = await load<typeof Rotation>('rotation/creative-rotation.ts');
  const { Pacer } = await load<typeof Pacing>('pacing/pacer.ts');
  const { campaignCandidates } = await load<typeof Index>('index/engine-index.ts');
  const { boundHeapGrowth, collectGarbageNow } = await load<typeof Collection>('full-collection.ts');
  // The engine's heap settings (main.ts): the default growth bound, the start's garbage collected before serving.
  boundHeapGrowth(100);

  const local = await startBenchRedis('adnet-burst-stretch-');
  const seeded = performance.now();
  await seedWorld(local.url, size(campaigns));
  process.stderr.write(`seeded ${campaigns} campaigns in ${Math.round(performance.now() - seeded)} ms\n`);
  // The engine's connection options that matter here (engine.ts): commands of one turn in one write.
  const redis = new Redis(local.url, { enableAutoPipelining: true });
  const subscriber = new Redis(local.url, { enableAutoPipelining: true });
  const budget = new BudgetSlices({ redis, engineId: 'burst', sliceCents: 100 });
  let index: EngineIndex | undefined;
  const pacer = new Pacer(redis, () => index);
  const rotation = new CreativeRotation({ redis, index: () => index });
  const mirror = new ConfigMirror({
    redis,
    subscriber,
    onError: (err) => process.stderr.write(`mirror: ${String(err)}\n`),
    // As the engine's (engine.ts): the consumers told of each index, the budget's slices for its changed campaigns.
    onIndex: (next, delta) => {
      index = next;
      rotation.indexChanged(next, delta);
      pacer.indexChanged(next, delta);
      if (!delta.full) for (const id of delta.campaigns) budget.prewarm(campaignCandidates(next, id));
    },
  });
  await mirror.start();
  // The first passes (every campaign), as an engine that has run a while has had them.
  await pacer.tick();
  await rotation.refresh();
  collectGarbageNow();

  const committer: ChildProcess = spawn(
    process.execPath,
    ['--import', 'tsx', process.argv[1] as string, '--commit', local.url, String(campaigns)],
    {
      cwd: ROOT,
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    },
  );
  const next = <T>() => new Promise<T>((r) => committer.once('message', (m) => r(m as T)));
  await next();

  const threadCpuMs = () => {
    // Node 23.9 and later (the engines' Node); absent from the repository's Node types.
    const u = (process as unknown as { threadCpuUsage: () => { user: number; system: number } }).threadCpuUsage();
    return (u.user + u.system) / 1000;
  };
  let gcMax = 0;
  const gcs: { start: number; ms: number }[] = [];
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      gcMax = Math.max(gcMax, e.duration);
      gcs.push({ start: e.startTime, ms: e.duration });
    }
  }).observe({ entryTypes: ['gc'] });

  const rows: string[] = [];
  for (let b = 0; b < bursts; b++) {
    const ready = next();
    committer.send({ burst: b + 1 });
    await ready;
    await new Promise((r) => setTimeout(r, 300));
    let turnCpuMax = 0;
    let gapMax = 0;
    /** Turns of more than 2 ms of CPU: when, and how long; the collections inside them are taken out below. */
    const long: { from: number; to: number; cpu: number }[] = [];
    let lastWall = performance.now();
    let lastCpu = threadCpuMs();
    const probe = setInterval(() => {
      const wall = performance.now();
      const cpu = threadCpuMs();
      turnCpuMax = Math.max(turnCpuMax, cpu - lastCpu);
      if (cpu - lastCpu > 2) long.push({ from: lastWall, to: wall, cpu: cpu - lastCpu });
      gapMax = Math.max(gapMax, wall - lastWall);
      lastWall = wall;
      lastCpu = cpu;
    }, 1);
    gcMax = 0;
    const started = performance.now();
    const cpuAtStart = threadCpuMs();
    const committed = next<{ last: string }>();
    committer.send({ go: true });
    const { last } = await committed;
    while (compareSeq(mirror.index?.seq ?? '0-0', last) < 0) await new Promise((r) => setTimeout(r, 1));
    const ms = performance.now() - started;
    const cpu = threadCpuMs() - cpuAtStart;
    clearInterval(probe);
    await new Promise((r) => setTimeout(r, 50));
    // The collections inside a turn are the collector's; what is left is the code's own stretch.
    const own = Math.max(
      0,
      ...long.map((t) => t.cpu - gcs.filter((g) => g.start >= t.from && g.start < t.to).reduce((a, g) => a + g.ms, 0)),
    );
    rows.push(
      `burst ${b + 1}: in the index ${ms.toFixed(0)} ms, this thread's CPU ${cpu.toFixed(0)} ms; longest turn: ${turnCpuMax.toFixed(2)} ms of CPU (wall ${gapMax.toFixed(2)} ms), without its collections at most ${own.toFixed(2)} ms; longest collection ${gcMax.toFixed(2)} ms`,
    );
    process.stderr.write(`${rows.at(-1)}\n`);
    await new Promise((r) => setTimeout(r, 2_000));
  }
  committer.kill();
  await mirror.stop();
  subscriber.disconnect();
  redis.disconnect();
  await local.stop();
  process.stdout.write(`${tree}\n${rows.join('\n')}\n`);
  process.exit(0);
}
