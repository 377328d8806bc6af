// `pnpm bench:load`: seeds a realistic world, then drives /openrtb/bid of a real engine (Redis and the event
// stream on) and a bare uWS handler at fixed rates, and writes bench/results/load.{json,md}.
import type { ChildProcess } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { ConfigStore } from '@adnet/admin/config-store';
import { chooseEngineNode } from '@adnet/engine/engine-node';
import { Redis } from 'ioredis';
import { ROOT, benchEngineNodeArgs, child } from './child.ts';
import { makeCorpus } from './corpus.ts';
import { writePlots } from './plots.ts';
import { pageHeader } from './results-page.ts';
import { freePort, startBenchRedis } from './local-redis.ts';
import { httpGet, httpRequest, runStep } from './load-generator.ts';
import type { StepResult } from './load-generator.ts';
import { LOOP_PROBE_ARGS, loopDelay, loopMax } from './loop-probe-client.ts';
import { cpuMs, rssMiB } from './proc-stats.ts';
import { impRequest, seedWidgetZone, servedLinks, WIDGET_HEADERS } from './widget-world.ts';
import type { VisitorRequest } from './widget-world.ts';
import { seedWorld } from './world.ts';

const STEP_MS = Number(process.env.BENCH_STEP_MS ?? 5_000);
const P99_LIMIT_MS = 10;
const WORLD = { campaigns: 10_000, creativesPerCampaign: 3, advertisers: 500 };

interface StepRow extends StepResult {
  cpuUsPerRequest: number;
  rssMiB: number;
  /**
   * The engines' event loop over the step (bench/src/loop-probe.ts; not for bare uWS and the floor): the longest
   * delay, and the most CPU time an engine's thread spent inside one stall over 5 ms (its own work; the rest of
   * a stall is waiting for a core on this shared machine).
   */
  loopMaxMs?: number;
  stallOnCpuMaxMs?: number | undefined;
}

/** A step's requests: one list for every step, or (clicks, beacons) as many fresh ones as the step sends. */
type Requests = Buffer[] | ((count: number) => Promise<Buffer[]>);

/** The server a sweep loads: its processes (their CPU is measured), its port, and the processes whose loop delay is probed. */
interface SweepTarget {
  pids: number[];
  port: number;
  probes?: ChildProcess[];
}

async function sweep(
  name: string,
  { pids, port, probes = [] }: SweepTarget,
  requests: Requests,
  rates: number[],
): Promise<{ steps: StepRow[]; maxRate: number }> {
  const take = (count: number) => (typeof requests === 'function' ? requests(count) : requests);
  await runStep({ port, requests: await take(2_000), rate: 1_000, durationMs: 2_000, connections: 64 }); // warm-up (JIT, slices)
  const steps: StepRow[] = [];
  let maxRate = 0;
  for (const rate of rates) {
    const stepRequests = await take(Math.ceil((rate * STEP_MS) / 1_000));
    await Promise.all(probes.map(loopDelay));
    const cpu0 = pids.reduce((t, p) => t + cpuMs(p), 0);
    const r = await runStep({ port, requests: stepRequests, rate, durationMs: STEP_MS, connections: 128 });
    const cpuUsPerRequest = Math.round(
      ((pids.reduce((t, p) => t + cpuMs(p), 0) - cpu0) * 1000) / Math.max(1, r.completed),
    );
    const loops = await Promise.all(probes.map(loopDelay));
    const loop = loops.length ? loops.reduce((a, b) => (b.maxMs > a.maxMs ? b : a)) : undefined;
    const row: StepRow = { ...r, cpuUsPerRequest, rssMiB: pids.reduce((t, p) => t + rssMiB(p), 0) };
    if (loop) Object.assign(row, { loopMaxMs: loop.maxMs, stallOnCpuMaxMs: loop.stallOnCpuMaxMs });
    steps.push(row);
    process.stderr.write(
      `${name} ${rate}/s: achieved ${r.achievedRate}/s p50 ${r.p50} p99 ${r.p99} p99.9 ${r.p999} errors ${r.errors} cpu ${cpuUsPerRequest}us/req${loop ? ` loop max ${loopMax(loop)} ms` : ''}\n`,
    );
    const held = r.errors === 0 && r.p99 < P99_LIMIT_MS && r.achievedRate >= rate * 0.97;
    if (!held) break;
    maxRate = rate;
  }
  return { steps, maxRate };
}

/** How long an admin write (through the admin's own ConfigStore) takes to show in the engine's index. */
async function measurePropagation(
  redisUrl: string,
  port: number,
): Promise<{ samples: number; p50Ms: number; maxMs: number }> {
  const redis = new Redis(redisUrl);
  const store = new ConfigStore(redis, 1_000_000);
  const times: number[] = [];
  for (let i = 0; i < 20; i++) {
    const started = performance.now();
    const seq = await store.commit('partner', 1_000 + i, {
      expectedRev: 0,
      value: {
        id: 1_000 + i,
        name: 'probe',
        allowed_ips: ['192.0.2.1'],
        qps_limit: 1,
        status: 'disabled',
        created_at: '',
        updated_at: '',
      },
    });
    for (;;) {
      const ready = (await (await fetch(`http://127.0.0.1:${port}/engine/readyz`)).json()) as { index_seq: string };
      if (ready.index_seq === seq) break;
    }
    times.push(performance.now() - started);
  }
  await redis.quit();
  times.sort((a, b) => a - b);
  return {
    samples: times.length,
    p50Ms: Math.round((times[10] ?? 0) * 100) / 100,
    maxMs: Math.round((times.at(-1) ?? 0) * 100) / 100,
  };
}

const local = await startBenchRedis('adnet-bench-');
const redisUrl = local.url;
const probe = local.client;

const seedStarted = performance.now();
await seedWorld(redisUrl, WORLD);
await seedWidgetZone(redisUrl);
const seedMs = Math.round(performance.now() - seedStarted);
process.stderr.write(
  `seeded ${WORLD.campaigns} campaigns / ${WORLD.campaigns * WORLD.creativesPerCampaign} creatives in ${seedMs} ms\n`,
);

const ENGINE_PROCESSES = Number(process.env.BENCH_ENGINE_PROCESSES ?? 1);
// BENCH_ENGINE_NODE=auto|current|<path>: the engine's and the bare handler's Node, as ENGINE_NODE picks it for `pnpm start`.
const node = chooseEngineNode(process.env.BENCH_ENGINE_NODE ?? 'auto');
const enginePort = await freePort();
const engineStarted = performance.now();
// Several engine processes share one port (SO_REUSEPORT), as `ENGINE_PROCESSES` does in `pnpm start`.
const engineProcs = await Promise.all(
  Array.from({ length: ENGINE_PROCESSES }, () =>
    child(
      'engine/src/main.ts',
      {
        ...{
          REDIS_URL: redisUrl,
          PORT: String(enginePort),
          LOG_LEVEL: 'warn',
          TRACKING_SECRET: 'b'.repeat(40),
          ENGINE_COUNT: String(ENGINE_PROCESSES),
        },
        // The generator connects from 127.0.0.1: trusted as the balancer, each widget request names its own visitor.
        TRUSTED_PROXIES: '127.0.0.1/32',
      },
      // The loop probe reports each step's stalls; e.g. BENCH_ENGINE_NODE_ARGS='--cpu-prof --cpu-prof-dir=/tmp/prof'
      // to profile the engine under load.
      [...LOOP_PROBE_ARGS, ...benchEngineNodeArgs()],
      node.execPath,
    ),
  ),
);
const engine = {
  port: enginePort,
  pids: engineProcs.map((e) => e.proc.pid ?? 0),
  procs: engineProcs.map((e) => e.proc),
};
const engineStartMs = Math.round(performance.now() - engineStarted);
const bare = await child('bench/src/bare-uws.ts', { PORT: String(await freePort()) }, [], node.execPath);
const corpus = makeCorpus(1_000);

const rates = (process.env.BENCH_RATES ?? '1000,2000,4000,6000,8000,10000,12000,15000,20000,25000,30000')
  .split(',')
  .map(Number);
const bids = corpus.map((b) => httpRequest('/openrtb/bid', b, { 'x-openrtb-version': '2.5' }));
const bareRun = await sweep('bare-uws', { pids: [bare.proc.pid ?? 0], port: bare.port }, bids, rates);
// The floor (floor-uws.ts): the transport plus only the work no bid answer can skip, on a Redis database of its own.
const floor = await child(
  'bench/src/floor-uws.ts',
  { PORT: String(await freePort()), TRACKING_SECRET: 'b'.repeat(40), REDIS_URL: `${redisUrl}/1` },
  [],
  node.execPath,
);
const floorRun = await sweep('floor', { pids: [floor.proc.pid ?? 0], port: floor.port }, bids, rates);
floor.proc.kill('SIGTERM');
await probe.config('RESETSTAT');
const engineTarget: SweepTarget = { pids: engine.pids, port: engine.port, probes: engine.procs };
const engineRun = await sweep(`engine x${ENGINE_PROCESSES}`, engineTarget, bids, rates);
// Redis calls the engine made during its sweep: the hot path should make almost none.
const redisCalls = Object.fromEntries(
  [...(await probe.info('commandstats')).matchAll(/cmdstat_(\w+):calls=(\d+)/g)].map((m) => [
    m[1] as string,
    Number(m[2]),
  ]),
);
process.stderr.write(`redis calls during the engine sweep: ${JSON.stringify(redisCalls)}\n`);
// The widget's paths at fixed rates too (BENCH_WIDGET=0 skips them): ad requests from distinct visitors,
// then clicks and beacons on ads served to other visitors (a click's ad rendered first, as its widget
// does: a click on an ad never rendered is invalid). A ticket counts once, so every step of /c and /b
// gets as many fresh ones as it sends, served just before it (a list reused across steps measured the
// duplicate path, as bench:wrk's did before it harvested, ab-history.md "Step: the widget's paths"). Served
// just before: a beacon minutes after its ad finds the bid's budget hold lapsed (auction/ticket-age.ts), a rarer path.
const get = (r: VisitorRequest) => httpGet(r.path, { ...WIDGET_HEADERS, 'x-forwarded-for': r.ip });
const widget: Record<string, { steps: StepRow[]; maxRate: number }> = {};
if (process.env.BENCH_WIDGET !== '0') {
  let visitor = 1_000_000;
  const harvest = async (count: number, rendered = false) => {
    const links = await servedLinks(engine.port, visitor, count, { parallel: 32, rendered });
    visitor += count * 2;
    return links;
  };
  widget['GET /imp'] = await sweep(
    'engine /imp',
    engineTarget,
    Array.from({ length: 20_000 }, (_, i) => get(impRequest(i))),
    rates,
  );
  widget['GET /c'] = await sweep(
    'engine /c',
    engineTarget,
    async (count) => (await harvest(count, true)).clicks.map(get),
    rates,
  );
  widget['GET /b'] = await sweep(
    'engine /b',
    engineTarget,
    async (count) => (await harvest(count)).beacons.map(get),
    rates,
  );
}
const streamLength = await probe.xlen('events');
const propagation = await measurePropagation(redisUrl, engine.port);
process.stderr.write(`config change -> engine index: ${JSON.stringify(propagation)}\n`);

for (const p of engine.procs) p.kill('SIGTERM');
bare.proc.kill('SIGTERM');
await Promise.all(engine.procs.map((p) => new Promise((r) => p.once('exit', r))));
await local.stop();

const sizes = corpus.map((b) => b.length).sort((a, b) => a - b);
const result = {
  date: new Date().toISOString(),
  machine: { cpus: cpus().length, model: cpus()[0]?.model, node: process.version, serverNode: node.version },
  world: { ...WORLD, countries: 50, formats: 6, seedMs, engineStartMs },
  engineProcesses: ENGINE_PROCESSES,
  corpus: {
    requests: corpus.length,
    minBytes: sizes[0],
    medianBytes: sizes[sizes.length >> 1],
    maxBytes: sizes[sizes.length - 1],
  },
  method: `open model, fixed rates, ${STEP_MS / 1000} s per step, 128 connections, latency from the send, or from the scheduled time when the request waited for a connection (coordinated omission); held = no errors, p99 < ${P99_LIMIT_MS} ms, >= 97% of target`,
  bareUws: bareRun,
  floor: floorRun,
  engine: engineRun,
  engineShareOfTransport: bareRun.maxRate ? Math.round((engineRun.maxRate / bareRun.maxRate) * 100) / 100 : null,
  widget,
  eventStreamEntries: streamLength,
  redisCallsDuringEngineSweep: redisCalls,
  configPropagation: propagation,
};
const out = join(ROOT, 'bench', 'results');
mkdirSync(out, { recursive: true });
const suffix = ENGINE_PROCESSES === 1 ? '' : `-x${ENGINE_PROCESSES}`;
writeFileSync(join(out, `load${suffix}.json`), JSON.stringify(result, null, 2) + '\n');
const row = (name: string, s: StepRow) =>
  `| ${name} | ${s.targetRate} | ${s.achievedRate} | ${s.p50} | ${s.p90} | ${s.p99} | ${s.p999} | ${s.errors} | ${s.cpuUsPerRequest} | ${s.rssMiB} | ${s.loopMaxMs === undefined ? '-' : s.stallOnCpuMaxMs === undefined ? s.loopMaxMs : `${s.loopMaxMs} (${s.stallOnCpuMaxMs})`} |`;
const md = [
  `# Load benchmark (${result.date})`,
  '',
  ...pageHeader('npx -y pnpm@10.34.8 bench:load'),
  '',
  `Machine: ${result.machine.cpus} CPUs (${result.machine.model}), Node ${result.machine.node} (engine and bare uWS on ${node.version}). The generator, Redis and the server share it.`,
  `World: ${WORLD.campaigns} active campaigns, ${WORLD.campaigns * WORLD.creativesPerCampaign} creatives, 50 countries, 6 formats (seeded in ${seedMs} ms; engine start ${engineStartMs} ms).`,
  `Corpus: ${corpus.length} OpenRTB requests, ${result.corpus.minBytes}-${result.corpus.maxBytes} bytes (median ${result.corpus.medianBytes}).`,
  `Method: ${result.method}.`,
  '',
  `**Highest rate held: ${ENGINE_PROCESSES} engine process(es) ${engineRun.maxRate}/s, bare uWS ${bareRun.maxRate}/s (engine = ${result.engineShareOfTransport ?? '-'} of the transport's limit in this run); the floor ${floorRun.maxRate}/s.**`,
  '',
  `The floor (bench/src/floor-uws.ts) answers a bid with only the work no answer can skip: the request through JSON.parse, a signed ticket, one event, the answer through JSON.stringify; its CPU per request is the least any engine built from these parts can spend.`,
  '',
  '| target | rate/s | achieved/s | p50 ms | p90 ms | p99 ms | p99.9 ms | errors | CPU us/req | RSS MiB | loop max ms (engine CPU in a stall) |',
  '|---|---|---|---|---|---|---|---|---|---|---|',
  ...bareRun.steps.map((s) => row('bare uWS', s)),
  ...floorRun.steps.map((s) => row('floor', s)),
  ...engineRun.steps.map((s) => row(`engine x${ENGINE_PROCESSES}`, s)),
  ...Object.entries(widget).flatMap(([path, run]) => run.steps.map((s) => row(`engine ${path}`, s))),
  '',
  ...Object.entries(widget).map(
    ([path, run]) =>
      `Widget path ${path}: highest rate held ${run.maxRate}/s (${bareRun.maxRate ? Math.round((run.maxRate / bareRun.maxRate) * 100) / 100 : '-'} of bare uWS's POST in this run).`,
  ),
  '',
  `Events written to the Redis stream during the run: ${streamLength} batches.`,
  `Redis calls by the engine during its sweep: ${JSON.stringify(redisCalls)}.`,
  `An admin change reaches the running engine's index in ${propagation.p50Ms} ms (median of ${propagation.samples}; max ${propagation.maxMs} ms).`,
  '',
  // The plots are drawn from load.json alone (plots.ts): a run of several engines has none of its own.
  ...(suffix
    ? []
    : [
        '![p99 latency against offered rate](load-latency.svg)',
        '',
        '![CPU per request against offered rate](load-cpu.svg)',
        '',
      ]),
].join('\n');
writeFileSync(join(out, `load${suffix}.md`), md);
writePlots();
process.stdout.write(md);
process.exit(0);
