// `pnpm bench:config`: how fast an admin change reaches a running engine's index, and what applying it
// costs the engine's event loop, while the engine answers a moderate bid load; at 10 000 campaigns
// (30 000 creatives) and 100 000 (300 000), with the engine's memory. Writes bench/results/config.{json,md}.
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { chooseEngineNode } from '@adnet/engine/engine-node';
import { ConfigStore } from '@adnet/admin/config-store';
import type { Creative, StoredCampaign } from '@adnet/schemas/api';
import type { Partner } from '@adnet/schemas/partners';
import { compareSeq } from '@adnet/schemas/wire/change-log';
import { Redis } from 'ioredis';
import { ROOT, benchEngineNodeArgs, child } from './child.ts';
import { makeCorpus } from './corpus.ts';
import { freePort, startBenchRedis } from './local-redis.ts';
import { httpRequest, runStep } from './load-generator.ts';
import type { StepResult } from './load-generator.ts';
import type { LoopDelay, Memory } from './loop-probe.ts';
import { LOOP_PROBE_ARGS, askProbe, loopDelay, loopMax } from './loop-probe-client.ts';
import { rssMiB } from './proc-stats.ts';
import { pageHeader } from './results-page.ts';
import { generateWorld, seedWorld } from './world.ts';

// BENCH_ENGINE_NODE=auto|current|<path>: the engine's Node, chosen as ENGINE_NODE chooses for `pnpm start` (bench:wrk too).
const node = chooseEngineNode(process.env.BENCH_ENGINE_NODE ?? 'auto');
const SIZES = (process.env.BENCH_CONFIG_SIZES ?? '10000,100000').split(',').map(Number);
const CHANGES = Number(process.env.BENCH_CONFIG_CHANGES ?? 300);
const BID_RATE = Number(process.env.BENCH_CONFIG_RATE ?? 1_000);
const BURST = Number(process.env.BENCH_CONFIG_BURST ?? 1_000);
/**
 * Bids before the bids-alone window (the start's garbage settles) and the window itself. The engine's first 10 s
 * passes read every campaign; later ones only what moved: a settle of 25 s and a window of 12 s measure one of those.
 */
const SETTLE_MS = Number(process.env.BENCH_CONFIG_SETTLE_MS ?? 5_000);
const IDLE_MS = Number(process.env.BENCH_CONFIG_IDLE_MS ?? 5_000);
/** Between two changes: an admin's pace, not a flood (the flood is the catch-up case, measured apart). */
const GAP_MS = 20;

interface Quantiles {
  p50: number;
  p90: number;
  p99: number;
  max: number;
}

interface SizeResult {
  campaigns: number;
  creatives: number;
  seedMs: number;
  engineStartMs: number;
  rssMiB: { loaded: number; afterChanges: number };
  /** The engine's own view once loaded: V8 heap in use and reserved, and memory outside it. */
  memory: Memory;
  /** The same after the changes and the burst. */
  memoryAfterChanges: Memory;
  /** Under the bid load alone, before any change: what the engine's loop does without one. */
  idle: { loop: LoopDelay; bids: StepResult };
  changes: {
    count: number;
    byKind: Record<string, number>;
    /** From the commit until this poller saw the seq in the engine's readiness. */
    propagationMs: Quantiles;
    /**
     * From the commit until the engine published the index holding it (its readiness's index_published_ms, one
     * clock: the same machine): without the poll's round trip and this process's own delays (its bid load
     * generator, its collections), which the observed figure adds.
     */
    atEngineMs: Quantiles;
    loop: LoopDelay;
    bids: StepResult;
  };
  /** BURST campaign changes committed at once: until the last is in the index, and the loop meanwhile. */
  burst: { campaigns: number; ms: number; loop: LoopDelay; bids: StepResult };
  /** The machine's 1-minute load average at the start and the end of the size's run: other work on a shared machine. */
  loadAverage: { start: number; end: number };
}

const quantile = (sorted: number[], q: number) =>
  Math.round((sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0) * 100) / 100;
const quantiles = (values: number[]): Quantiles => {
  const sorted = values.toSorted((a, b) => a - b);
  return {
    p50: quantile(sorted, 0.5),
    p90: quantile(sorted, 0.9),
    p99: quantile(sorted, 0.99),
    max: quantile(sorted, 1),
  };
};

const gcText = (l: LoopDelay) =>
  `GC pause max ${l.gcMaxMs} ms (major: ${l.majorGcs}, max ${l.majorGcMaxMs} ms), GC total ${l.gcTotalMs} ms; ${l.stalls} stalls over 5 ms, the engine's CPU in one at most ${l.stallOnCpuMaxMs ?? '-'} ms, off the CPU in one at most ${l.stallOffCpuMaxMs ?? '-'} ms`;

interface Readiness {
  index_seq: string;
  /** When the engine published that index, epoch ms: a change's arrival where it ends, not when this poller next looked. */
  index_published_ms: number;
}

async function readiness(port: number): Promise<Readiness> {
  return (await (await fetch(`http://127.0.0.1:${port}/engine/readyz`)).json()) as Readiness;
}

async function runSize(campaigns: number): Promise<SizeResult> {
  const loadStart = loadavg()[0] as number;
  const size = { campaigns, creativesPerCampaign: 3, advertisers: 500 };
  const world = generateWorld(size);
  const local = await startBenchRedis('adnet-bench-config-');
  const seedStarted = performance.now();
  await seedWorld(local.url, size);
  const seedMs = Math.round(performance.now() - seedStarted);
  process.stderr.write(`seeded ${campaigns} campaigns / ${world.creatives.length} creatives in ${seedMs} ms\n`);

  const port = await freePort();
  const engineStarted = performance.now();
  const { proc } = await child(
    'engine/src/main.ts',
    {
      REDIS_URL: local.url,
      PORT: String(port),
      METRICS_PORT: String(await freePort()),
      LOG_LEVEL: 'warn',
      TRACKING_SECRET: 'b'.repeat(40),
    },
    // V8's arguments as the launcher gives them, then the bench's own.
    [...LOOP_PROBE_ARGS, ...benchEngineNodeArgs()],
    node.execPath,
  );
  while ((await fetch(`http://127.0.0.1:${port}/engine/readyz`)).status !== 200)
    await new Promise((r) => setTimeout(r, 50));
  const engineStartMs = Math.round(performance.now() - engineStarted);
  const pid = proc.pid ?? 0;
  // Settled memory: the start's garbage collected, as an engine that has run a while holds it.
  await runStep({ port, requests: bids, rate: BID_RATE, durationMs: SETTLE_MS, connections: 32 });
  const loaded = rssMiB(pid);
  const memory = await askProbe<Memory>(proc, 'memory');
  process.stderr.write(`engine ready in ${engineStartMs} ms, RSS ${loaded} MiB, ${JSON.stringify(memory)}\n`);

  await loopDelay(proc);
  const idleBids = await runStep({ port, requests: bids, rate: BID_RATE, durationMs: IDLE_MS, connections: 32 });
  const idleLoop = await loopDelay(proc);
  process.stderr.write(
    `bids alone: p99 ${idleBids.p99} ms, loop delay max ${idleLoop.maxMs} ms p99 ${idleLoop.p99Ms} ms, ${gcText(idleLoop)}\n`,
  );

  const redis = new Redis(local.url);
  const store = new ConfigStore(redis, 1_000_000);
  const byKind: Record<string, number> = {};
  const times: number[] = [];
  const atEngine: number[] = [];
  let load: Promise<StepResult> | undefined;
  let stopAt = 0;
  const changed = async () => {
    await loopDelay(proc);
    // Long enough to cover every change; what runs after the last is loop time without changes.
    load = runStep({
      port,
      requests: bids,
      rate: BID_RATE,
      durationMs: CHANGES * (GAP_MS + 30) + 2_000,
      connections: 32,
    });
    stopAt = performance.now();
    for (let i = 0; i < CHANGES; i++) {
      await new Promise((r) => setTimeout(r, GAP_MS));
      // A campaign's bid (re-ranks its candidates in every list it is in), a creative's weight, a partner: what admins change most.
      const kind = (['campaign', 'creative', 'campaign', 'partner'] as const)[i % 4] as
        'campaign' | 'creative' | 'partner';
      const id =
        kind === 'campaign'
          ? (world.campaigns[(i * 7919) % world.campaigns.length] as StoredCampaign).id
          : kind === 'creative'
            ? (world.creatives[(i * 104_729) % world.creatives.length] as Creative).id
            : 1_000 + i;
      const current = await store.read<Record<string, unknown>>(kind, id);
      const value =
        kind === 'campaign'
          ? { ...current?.value, bid_micro_cents: Number(current?.value.bid_micro_cents ?? 0) + 1 + (i % 1000) }
          : kind === 'creative'
            ? { ...current?.value, weight: 1 + (i % 100) }
            : ({
                ...world.partner,
                id,
                name: 'probe',
                allowed_ips: ['192.0.2.1'],
                qps_limit: 1,
                status: 'disabled',
              } satisfies Partner);
      const started = performance.now();
      const seq = await store.commit(kind, id, { expectedRev: current?.rev ?? 0, value });
      let ready = await readiness(port);
      while (ready.index_seq !== seq) ready = await readiness(port);
      times.push(performance.now() - started);
      atEngine.push(ready.index_published_ms - (performance.timeOrigin + started));
      byKind[kind] = (byKind[kind] ?? 0) + 1;
      if ((i + 1) % 50 === 0) process.stderr.write(`${i + 1} changes, last ${Math.round(times.at(-1) ?? 0)} ms\n`);
    }
  };
  await changed();
  const loop = await loopDelay(proc);
  stopAt = performance.now() - stopAt;
  const bidsDuring = await (load as Promise<StepResult>);
  // A burst: BURST campaigns changed at once (an import, a bulk pause), read by the engine as one catch-up.
  const burstIds = Array.from(
    { length: BURST },
    (_, k) => (world.campaigns[(k * 13) % world.campaigns.length] as StoredCampaign).id,
  );
  const current = await Promise.all(burstIds.map((id) => store.read<Record<string, unknown>>('campaign', id)));
  const burstLoad = runStep({ port, requests: bids, rate: BID_RATE, durationMs: 6_000, connections: 32 });
  await new Promise((r) => setTimeout(r, 1_000));
  await loopDelay(proc);
  const burstStarted = performance.now();
  const seqs = await Promise.all(
    burstIds.map((id, k) => {
      const stored = current[k];
      const bid = Number(stored?.value.bid_micro_cents ?? 0) + 7;
      return store.commit('campaign', id, {
        expectedRev: stored?.rev ?? 0,
        value: { ...stored?.value, bid_micro_cents: bid },
      });
    }),
  );
  const lastSeq = seqs.reduce((a, b) => (compareSeq(a, b) >= 0 ? a : b));
  while (compareSeq((await readiness(port)).index_seq, lastSeq) < 0);
  const burstMs = Math.round(performance.now() - burstStarted);
  const burstLoop = await loopDelay(proc);
  const burstBids = await burstLoad;
  process.stderr.write(
    `burst of ${BURST} campaign changes: in the index ${burstMs} ms after the first commit, loop delay max ${burstLoop.maxMs} ms, ${gcText(burstLoop)}, bids p99 ${burstBids.p99} ms\n`,
  );
  const afterChanges = rssMiB(pid);
  const memoryAfterChanges = await askProbe<Memory>(proc, 'memory');
  process.stderr.write(`after changes: RSS ${afterChanges} MiB, ${JSON.stringify(memoryAfterChanges)}\n`);
  const propagationMs = quantiles(times);
  const atEngineMs = quantiles(atEngine);
  process.stderr.write(
    `${CHANGES} changes in ${Math.round(stopAt)} ms: propagation ${JSON.stringify(propagationMs)} (at the engine ${JSON.stringify(atEngineMs)}), loop delay max ${loop.maxMs} ms p99 ${loop.p99Ms} ms, ${gcText(loop)}, bids p99 ${bidsDuring.p99} ms\n`,
  );
  await redis.quit();
  proc.kill('SIGTERM');
  await new Promise((r) => proc.once('exit', r));
  await local.stop();
  return {
    campaigns,
    creatives: world.creatives.length,
    seedMs,
    engineStartMs,
    rssMiB: { loaded, afterChanges },
    memory,
    memoryAfterChanges,
    idle: { loop: idleLoop, bids: idleBids },
    changes: { count: CHANGES, byKind, propagationMs, atEngineMs, loop, bids: bidsDuring },
    burst: { campaigns: BURST, ms: burstMs, loop: burstLoop, bids: burstBids },
    loadAverage: { start: Math.round(loadStart * 10) / 10, end: Math.round((loadavg()[0] as number) * 10) / 10 },
  };
}

const bids = makeCorpus(1_000).map((b) => httpRequest('/openrtb/bid', b, { 'x-openrtb-version': '2.5' }));
const results: SizeResult[] = [];
for (const n of SIZES) results.push(await runSize(n));

const result = {
  date: new Date().toISOString(),
  machine: { cpus: cpus().length, model: cpus()[0]?.model, node: process.version, engineNode: node.version },
  method: `one engine process; bid load ${BID_RATE}/s open model (32 connections) throughout; ${CHANGES} admin changes through the admin's ConfigStore, ${GAP_MS} ms apart (campaign bid, creative weight, campaign bid, partner), each timed from the commit until the engine's /engine/readyz shows its seq (and, "at the engine", until the engine published the index holding it, its readiness's index_published_ms); then ${BURST} campaign changes committed at once; event-loop delay inside the engine by monitorEventLoopDelay (1 ms resolution) over the window, and each stall over 5 ms split into the engine thread's CPU time and time off the CPU (process.threadCpuUsage between 1 ms ticks)`,
  sizes: results,
};
const out = join(ROOT, 'bench', 'results');
mkdirSync(out, { recursive: true });
const tag = process.env.BENCH_CONFIG_TAG ? `-${process.env.BENCH_CONFIG_TAG}` : '';
writeFileSync(join(out, `config${tag}.json`), JSON.stringify(result, null, 2) + '\n');
const md = [
  `# Config-change benchmark (${result.date})`,
  '',
  ...pageHeader('npx -y pnpm@10.34.8 bench:config'),
  '',
  `Machine: ${result.machine.cpus} CPUs (${result.machine.model}), Node ${result.machine.node} (the engine on ${node.version}). The generator, Redis and the engine share it.`,
  `Method: ${result.method}.`,
  '',
  '| campaigns | creatives | engine RSS MiB (loaded / after changes) | heap used MiB | propagation p50 ms | p90 | p99 | max | p99 at the engine | loop delay max ms (changes; engine CPU in a stall) | loop p99 ms | loop delay max ms (bids alone; engine CPU in a stall) | bid p99 ms (changes / alone) | burst: changes, ms, loop max ms | longest GC pause ms (changes) | load average (start / end) |',
  '|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|',
  ...results.map(
    (s) =>
      `| ${s.campaigns} | ${s.creatives} | ${s.rssMiB.loaded} / ${s.rssMiB.afterChanges} | ${s.memory.heapUsedMiB} | ${s.changes.propagationMs.p50} | ${s.changes.propagationMs.p90} | ${s.changes.propagationMs.p99} | ${s.changes.propagationMs.max} | ${s.changes.atEngineMs.p99} | ${loopMax(s.changes.loop)} | ${s.changes.loop.p99Ms} | ${loopMax(s.idle.loop)} | ${s.changes.bids.p99} / ${s.idle.bids.p99} | ${s.burst.campaigns}, ${s.burst.ms}, ${s.burst.loop.maxMs} | ${s.changes.loop.gcMaxMs} | ${s.loadAverage.start} / ${s.loadAverage.end} |`,
  ),
  '',
].join('\n');
writeFileSync(join(out, `config${tag}.md`), md);
process.stdout.write(md);
process.exit(0);
