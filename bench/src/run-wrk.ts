// `pnpm bench:wrk`: closed-loop maximum throughput with wrk (Debian package `wrk`), beside the open-model
// generator of bench:load (kept for latency at fixed rates). One wrk thread and 64 kept-alive connections
// drive each target flat out for BENCH_WRK_SECONDS; wrk runs the Lua driver bench/wrk/post-corpus.lua,
// which cycles through a corpus file. Targets: the bare uWS handler (the transport's limit), then a real
// engine (Redis and the event stream on, 10 000 campaigns) on /openrtb/bid, /imp, /hb/bid, /c and the impression
// beacon. Writes bench/results/wrk.{json,md}.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { chooseEngineNode } from '@adnet/engine/engine-node';
import { pageHeader } from './results-page.ts';
import { ROOT, benchEngineNodeArgs, child } from './child.ts';
import { makeCorpus } from './corpus.ts';
import { writePlots } from './plots.ts';
import { freePort, startBenchRedis } from './local-redis.ts';
import { cpuMs, rssMiB } from './proc-stats.ts';
import { goRequest, hbRequest, impRequest, seedWidgetZone, servedLinks, WIDGET_HEADERS } from './widget-world.ts';
import type { VisitorRequest } from './widget-world.ts';
import { seedWorld } from './world.ts';

const SECONDS = Number(process.env.BENCH_WRK_SECONDS ?? 10);
const CONNECTIONS = Number(process.env.BENCH_WRK_CONNECTIONS ?? 64);
const WORLD = { campaigns: 10_000, creativesPerCampaign: 3, advertisers: 500 };
const VISITORS = 20_000;
// /c and /b get this many fresh served ads (visitors of their own), harvested after the /imp run, so their
// once-only marks are new: each ticket counts once, so a short corpus would measure only repeats.
const TICKETS = Number(process.env.BENCH_WRK_TICKETS ?? 60_000);
// BENCH_WRK_ENDPOINTS=bid (or imp,hb,go,click,beacon): only those engine runs, e.g. to profile one path alone.
const ENDPOINTS = new Set((process.env.BENCH_WRK_ENDPOINTS ?? 'bid,imp,hb,go,click,beacon').split(','));

if (spawnSync('wrk', ['--version']).error) {
  process.stderr.write('wrk is not installed: apt-get install wrk (Debian package)\n');
  process.exit(1);
}

interface WrkSummary {
  requests: number;
  duration_us: number;
  errors: number;
  status_errors: number;
  p50_us: number;
  p99_us: number;
  p999_us: number;
  max_us: number;
}
interface Row {
  target: string;
  endpoint: string;
  rate: number;
  p50Ms: number;
  p99Ms: number;
  p999Ms: number;
  errors: number;
  cpuUsPerRequest: number;
  rssMiB: number;
  /** /c and /b: the share of requests that carried a ticket not seen before (the rest repeat the corpus: duplicates). */
  freshShare?: number;
}

const work = mkdtempSync(join(tmpdir(), 'adnet-wrk-'));
const lua = join(ROOT, 'bench', 'wrk', 'post-corpus.lua');

/** Runs wrk against one URL with one corpus file, measuring the server processes' CPU over the run. */
function runWrk(
  { target, port, pids }: { target: string; port: number; pids: number[] },
  {
    endpoint,
    corpusFile,
    env,
    tickets,
  }: { endpoint: string; corpusFile: string; env: Record<string, string>; tickets?: number },
): Row {
  const cpu0 = pids.reduce((t, p) => t + cpuMs(p), 0);
  const out = execFileSync(
    'wrk',
    ['-t1', `-c${CONNECTIONS}`, `-d${SECONDS}s`, '-s', lua, `http://127.0.0.1:${port}/`],
    {
      env: { ...process.env, WRK_CORPUS: corpusFile, ...env },
      encoding: 'utf8',
    },
  );
  const cpu = pids.reduce((t, p) => t + cpuMs(p), 0) - cpu0;
  if (process.env.BENCH_WRK_DEBUG) process.stderr.write(out);
  const line = out.split('\n').find((l) => l.startsWith('{"requests"'));
  if (!line) throw new Error(`wrk printed no summary:\n${out}`);
  const s = JSON.parse(line) as WrkSummary;
  const ms = (us: number) => Math.round(us / 10) / 100;
  const row = {
    target,
    endpoint,
    rate: Math.round(s.requests / (s.duration_us / 1e6)),
    p50Ms: ms(s.p50_us),
    p99Ms: ms(s.p99_us),
    p999Ms: ms(s.p999_us),
    errors: s.errors,
    cpuUsPerRequest: Math.round((cpu * 1000) / Math.max(1, s.requests)),
    rssMiB: pids.reduce((t, p) => t + rssMiB(p), 0),
    // wrk walks the corpus in order from one point: the first `tickets` requests are all distinct.
    ...(tickets === undefined
      ? {}
      : { freshShare: Math.round((Math.min(tickets, s.requests) / Math.max(1, s.requests)) * 100) / 100 }),
  };
  const fresh = row.freshShare === undefined ? '' : ` fresh ${row.freshShare}`;
  process.stderr.write(
    `${target} ${endpoint}: ${row.rate}/s p50 ${row.p50Ms} p99 ${row.p99Ms} ms errors ${row.errors} cpu ${row.cpuUsPerRequest}us/req${fresh}\n`,
  );
  return row;
}

const local = await startBenchRedis('adnet-wrk-redis-');
await seedWorld(local.url, WORLD);
await seedWidgetZone(local.url);

// BENCH_ENGINE_NODE=auto|current|<path>: the Node the engine and the bare handler run on, chosen as ENGINE_NODE
// chooses for `pnpm start` (default auto: the bundled Node 24 where it loads), so Node 20 and 24 can be compared.
const node = chooseEngineNode(process.env.BENCH_ENGINE_NODE ?? 'auto');
process.stderr.write(`engine and bare uWS on Node ${node.version} (${node.reason})\n`);

const enginePort = await freePort();
// BENCH_ENGINE_PROCESSES=N: N engine processes share the port (SO_REUSEPORT), as `ENGINE_PROCESSES` does in
// `pnpm start`; results then go to wrk-xN.{json,md}, so one run per process count can sit side by side.
const ENGINE_PROCESSES = Number(process.env.BENCH_ENGINE_PROCESSES ?? 1);
const engines = await Promise.all(
  Array.from({ length: ENGINE_PROCESSES }, () =>
    child(
      'engine/src/main.ts',
      {
        REDIS_URL: local.url,
        PORT: String(enginePort),
        LOG_LEVEL: 'warn',
        TRACKING_SECRET: 'b'.repeat(40),
        ENGINE_COUNT: String(ENGINE_PROCESSES),
        // wrk connects from 127.0.0.1: trusting it as the balancer lets each request name its own visitor.
        TRUSTED_PROXIES: '127.0.0.1/32',
      },
      benchEngineNodeArgs(),
      node.execPath,
    ),
  ),
);
const bare = await child('bench/src/bare-uws.ts', { PORT: String(await freePort()) }, [], node.execPath);
// The floor (floor-uws.ts): the transport plus only the work no answer can skip, on a Redis database of its own so
// its once-only marks are fresh for tickets the engine already counted.
const floor = await child(
  'bench/src/floor-uws.ts',
  { PORT: String(await freePort()), TRACKING_SECRET: 'b'.repeat(40), REDIS_URL: `${local.url}/1` },
  // BENCH_FLOOR_NODE_ARGS: V8's arguments for the floor alone (a CPU profile beside the engine's, for instance).
  (process.env.BENCH_FLOOR_NODE_ARGS ?? '').split(' ').filter(Boolean),
  node.execPath,
);
const enginePids = engines.map((e) => e.proc.pid ?? 0);

// Corpus files: bid request bodies, and GET lines "path<TAB>visitor address" for the widget's paths.
const bidFile = join(work, 'bid.txt');
writeFileSync(
  bidFile,
  makeCorpus(1_000)
    .map((b) => b.toString('utf8'))
    .join('\n') + '\n',
);
const line = (r: VisitorRequest) => `${r.path}\t${r.ip}`;
const impFile = join(work, 'imp.txt');
writeFileSync(impFile, Array.from({ length: VISITORS }, (_, i) => line(impRequest(i))).join('\n') + '\n');
// /hb/bid: the same visitors' header bids as our Prebid.js adapter posts them ("body<TAB>address" lines).
const hbFile = join(work, 'hb.txt');
writeFileSync(hbFile, Array.from({ length: VISITORS }, (_, i) => line(hbRequest(i))).join('\n') + '\n');
// /go: the same visitors' visits of the direct-link zone (a pop each, then the zone's cap sends repeats to its fallback).
const goFile = join(work, 'go.txt');
writeFileSync(goFile, Array.from({ length: VISITORS }, (_, i) => line(goRequest(i))).join('\n') + '\n');
/** Fresh served ads' links as corpus files (click, beacon), for visitors from `from` on; with `rendered`, each ad's beacon sent already. */
async function harvest(from: number, rendered: boolean): Promise<{ click: string; beacon: string; tickets: number }> {
  const t0 = Date.now();
  const { clicks, beacons } = await servedLinks(enginePort, from, TICKETS, { parallel: 32, rendered });
  process.stderr.write(`harvested ${clicks.length} served ads in ${Date.now() - t0} ms\n`);
  const click = join(work, `click-${from}.txt`);
  const beacon = join(work, `beacon-${from}.txt`);
  writeFileSync(click, clicks.map(line).join('\n') + '\n');
  writeFileSync(beacon, beacons.map(line).join('\n') + '\n');
  return { click, beacon, tickets: clicks.length };
}

const get = {
  WRK_METHOD: 'GET',
  WRK_HEADERS: Object.entries(WIDGET_HEADERS)
    .map(([k, v]) => `${k}: ${v}`)
    .join('\n'),
};
const engineName = ENGINE_PROCESSES === 1 ? 'engine' : `engine x${ENGINE_PROCESSES}`;
const bareServer = { target: 'bare uWS', port: bare.port, pids: [bare.proc.pid ?? 0] };
const engineServer = { target: engineName, port: enginePort, pids: enginePids };
const rows: Row[] = [
  runWrk(bareServer, { endpoint: 'POST /openrtb/bid', corpusFile: bidFile, env: {} }),
  runWrk(bareServer, { endpoint: 'GET', corpusFile: impFile, env: get }),
];
const floorServer = { target: 'floor', port: floor.port, pids: [floor.proc.pid ?? 0] };
const floorRun = (endpoint: string, corpusFile: string, env: Record<string, string>, tickets?: number) =>
  rows.push(runWrk(floorServer, { endpoint, corpusFile, env, tickets }));
if (ENDPOINTS.has('bid')) {
  rows.push(runWrk(engineServer, { endpoint: 'POST /openrtb/bid', corpusFile: bidFile, env: {} }));
  floorRun('POST /openrtb/bid', bidFile, {});
}
if (ENDPOINTS.has('imp')) {
  rows.push(runWrk(engineServer, { endpoint: 'GET /imp', corpusFile: impFile, env: get }));
  floorRun('GET /imp', impFile, get);
}
if (ENDPOINTS.has('hb')) {
  // As the adapter sends it: text/plain from the publisher's page (the floor has no such route: no floor row).
  const hb = { WRK_PATH: '/hb/bid', WRK_HEADERS: `${get.WRK_HEADERS}\ncontent-type: text/plain` };
  rows.push(runWrk(engineServer, { endpoint: 'POST /hb/bid', corpusFile: hbFile, env: hb }));
}
if (ENDPOINTS.has('go')) {
  // No referer or origin of the site: a direct link is visited from anywhere.
  rows.push(runWrk(engineServer, { endpoint: 'GET /go (direct link)', corpusFile: goFile, env: get }));
}
// A harvest for each: the clicks' ads rendered first (a click counts only on a rendered ad), the beacons' not yet.
const rendered = ENDPOINTS.has('click') ? await harvest(1_000_000, true) : undefined;
const fresh = ENDPOINTS.has('beacon') ? await harvest(1_000_000 + 2 * TICKETS, false) : undefined;
const harvested = rendered?.tickets ?? fresh?.tickets ?? 0;
if (rendered) {
  rows.push(
    runWrk(engineServer, { endpoint: 'GET /c', corpusFile: rendered.click, env: get, tickets: rendered.tickets }),
  );
  floorRun('GET /c', rendered.click, get, rendered.tickets);
}
if (fresh) {
  rows.push(
    runWrk(engineServer, {
      endpoint: 'GET /b (impression beacon)',
      corpusFile: fresh.beacon,
      env: get,
      tickets: fresh.tickets,
    }),
  );
  floorRun('GET /b (impression beacon)', fresh.beacon, get, fresh.tickets);
}

for (const e of engines) e.proc.kill('SIGTERM');
bare.proc.kill('SIGTERM');
floor.proc.kill('SIGTERM');
await Promise.all(engines.map((e) => new Promise((r) => e.proc.once('exit', r))));
await local.stop();
rmSync(work, { recursive: true, force: true });

const bareOf = (endpoint: string) =>
  rows.find(
    (r) =>
      r.target === 'bare uWS' && (endpoint.startsWith('POST') ? r.endpoint.startsWith('POST') : r.endpoint === 'GET'),
  );
const result = {
  date: new Date().toISOString(),
  machine: { cpus: cpus().length, model: cpus()[0]?.model, node: process.version, serverNode: node.version },
  engineProcesses: ENGINE_PROCESSES,
  method: `wrk 1 thread, ${CONNECTIONS} kept-alive connections, ${SECONDS} s per target, closed loop (a connection sends its next request when the answer arrives)`,
  world: { ...WORLD, visitors: VISITORS, ticketsPerRun: harvested },
  rows: rows.map((r) => ({
    ...r,
    shareOfTransport:
      r.target !== 'bare uWS' ? Math.round((r.rate / (bareOf(r.endpoint)?.rate ?? 1)) * 100) / 100 : null,
  })),
};
const outDir = join(ROOT, 'bench', 'results');
mkdirSync(outDir, { recursive: true });
const suffix = ENGINE_PROCESSES === 1 ? '' : `-x${ENGINE_PROCESSES}`;
writeFileSync(join(outDir, `wrk${suffix}.json`), JSON.stringify(result, null, 2) + '\n');
const md = [
  `# Closed-loop throughput with wrk (${result.date})`,
  '',
  ...pageHeader('npx -y pnpm@10.34.8 bench:wrk'),
  '',
  `Machine: ${result.machine.cpus} CPUs (${result.machine.model}), Node ${result.machine.node} (engine and bare uWS on ${node.version}); wrk, Redis and the server share it.`,
  `Method: ${result.method}. World: ${WORLD.campaigns} campaigns, ${WORLD.campaigns * WORLD.creativesPerCampaign} creatives; /imp from ${VISITORS} distinct visitors; /c and /b on ${harvested} fresh served ads of visitors of their own, harvested after the /imp run (clicks with the widget's signals on ads whose beacon was sent first: valid, counted and charged; a ticket counts once, so requests past the corpus's length repeat it and take the duplicate path: the share of fresh ones is the column fresh).`,
  `The floor (bench/src/floor-uws.ts) is the transport plus only the work no answer of its path can skip (the bid request through JSON.parse, a signed ticket, one event, the answer through JSON.stringify; for /b and /c the ticket's signature, its once-only mark in Redis, one event), without the engine's rules: a share of bare uWS the floor does not reach is out of reach of the engine built from these parts.`,
  '',
  '| target | endpoint | req/s | share of bare uWS | p50 ms | p99 ms | p99.9 ms | errors | CPU us/req | RSS MiB | fresh |',
  '|---|---|---|---|---|---|---|---|---|---|---|',
  ...result.rows.map(
    (r) =>
      `| ${r.target} | ${r.endpoint} | ${r.rate} | ${r.shareOfTransport ?? '-'} | ${r.p50Ms} | ${r.p99Ms} | ${r.p999Ms} | ${r.errors} | ${r.cpuUsPerRequest} | ${r.rssMiB} | ${r.freshShare ?? '-'} |`,
  ),
  '',
  // The plots are drawn from wrk.json alone (plots.ts): a run of several engines has none of its own.
  ...(suffix
    ? []
    : ['![Highest rate by endpoint](wrk-rate.svg)', '', '![CPU per request by endpoint](wrk-cpu.svg)', '']),
].join('\n');
writeFileSync(join(outDir, `wrk${suffix}.md`), md);
writePlots();
process.stdout.write(md);
process.exit(0);
