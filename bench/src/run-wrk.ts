// `pnpm bench:wrk`: closed-loop maximum throughput with wrk (Debian package `wrk`), beside the open-model
// generator of bench:load (kept for latency at fixed rates). One wrk thread and 64 kept-alive connections
// drive each target flat out for BENCH_WRK_SECONDS; wrk runs the Lua driver bench/wrk/post-corpus.lua,
// which cycles through a corpus file. Targets: the bare uWS handler (the transport's limit), then a real
// engine (Redis and the event stream on, 10 000 campaigns) on /openrtb/bid, /imp, /c and the impression
// beacon. Writes bench/results/wrk.{json,md}.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigStore } from '@adnet/admin/config-store';
import { Redis } from 'ioredis';
import { ROOT, child } from './child.ts';
import { makeCorpus } from './corpus.ts';
import { writePlots } from './plots.ts';
import { freePort, startBenchRedis } from './local-redis.ts';
import { cpuMs, rssMiB } from './proc-stats.ts';
import { seedWorld } from './world.ts';

const SECONDS = Number(process.env.BENCH_WRK_SECONDS ?? 10);
const CONNECTIONS = Number(process.env.BENCH_WRK_CONNECTIONS ?? 64);
const WORLD = { campaigns: 10_000, creativesPerCampaign: 3, advertisers: 500 };
const VISITORS = 20_000;
const ZONE = 'benchzone01';
const SITE_DOMAIN = 'news.example';
// BENCH_WRK_ENDPOINTS=bid (or imp,click,beacon): only those engine runs, e.g. to profile one path alone.
const ENDPOINTS = new Set((process.env.BENCH_WRK_ENDPOINTS ?? 'bid,imp,click,beacon').split(','));

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
}

const work = mkdtempSync(join(tmpdir(), 'adnet-wrk-'));
const lua = join(ROOT, 'bench', 'wrk', 'post-corpus.lua');

/** Runs wrk against one URL with one corpus file, measuring the server processes' CPU over the run. */
function runWrk(target: string, endpoint: string, port: number, pids: number[], corpusFile: string, env: Record<string, string>): Row {
  const cpu0 = pids.reduce((t, p) => t + cpuMs(p), 0);
  const out = execFileSync('wrk', ['-t1', `-c${CONNECTIONS}`, `-d${SECONDS}s`, '-s', lua, `http://127.0.0.1:${port}/`], {
    env: { ...process.env, WRK_CORPUS: corpusFile, ...env },
    encoding: 'utf8',
  });
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
  };
  process.stderr.write(`${target} ${endpoint}: ${row.rate}/s p50 ${row.p50Ms} p99 ${row.p99Ms} ms errors ${row.errors} cpu ${row.cpuUsPerRequest}us/req\n`);
  return row;
}

const local = await startBenchRedis('adnet-wrk-redis-');
await seedWorld(local.url, WORLD);
// One approved site with a 300x250 banner zone, for the widget's paths.
{
  const redis = new Redis(local.url);
  const store = new ConfigStore(redis, 1_000_000);
  const now = new Date().toISOString();
  const site = { id: 1, publisher_id: 9, domain: SITE_DOMAIN, status: 'approved', category: 'news', language: 'en', created_at: now, updated_at: now };
  await store.commit('site', 1, 0, site);
  const zone = {
    ...{ id: 1, site_id: 1, publisher_id: 9, subid: ZONE, name: 'bench', format: 'banner', banner_width: 300, banner_height: 250 },
    ...{ status: 'active', created_at: now, updated_at: now },
  };
  await store.commit('zone', 1, 0, zone);
  await redis.quit();
}

const enginePort = await freePort();
const engine = await child(
  'engine/src/main.ts',
  {
    REDIS_URL: local.url,
    PORT: String(enginePort),
    LOG_LEVEL: 'warn',
    TRACKING_SECRET: 'b'.repeat(40),
    ENGINE_COUNT: '1',
    // wrk connects from 127.0.0.1: trusting it as the balancer lets each request name its own visitor.
    TRUSTED_PROXIES: '127.0.0.1/32',
  },
  (process.env.BENCH_ENGINE_NODE_ARGS ?? '').split(' ').filter(Boolean),
);
const bare = await child('bench/src/bare-uws.ts', { PORT: String(await freePort()) });
const enginePid = engine.proc.pid ?? 0;

// Corpus files: bid request bodies, and GET lines "path<TAB>visitor address" for the widget's paths.
const bidFile = join(work, 'bid.txt');
writeFileSync(
  bidFile,
  makeCorpus(1_000)
    .map((b) => b.toString('utf8'))
    .join('\n') + '\n',
);
const visitor = (i: number) => ({
  ip: `10.${(i >> 8) & 255}.${i & 255}.${1 + ((i >> 16) & 127)}`,
  fp: `fingerprint${i}`,
  u: `visitor-id-${String(i).padStart(10, '0')}`,
});
const impPath = (i: number) => `/imp?z=${ZONE}&fp=${visitor(i).fp}&s=e30&u=${visitor(i).u}`;
const impFile = join(work, 'imp.txt');
writeFileSync(impFile, Array.from({ length: VISITORS }, (_, i) => `${impPath(i)}\t${visitor(i).ip}`).join('\n') + '\n');
const widgetHeaders = {
  'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/125.0 Safari/537.36',
  'accept-language': 'en-US',
  origin: `https://www.${SITE_DOMAIN}`,
  referer: `https://www.${SITE_DOMAIN}/article`,
};

// Served ads for the click and beacon runs: what real visitors' widgets would call next.
const clicks: string[] = [];
const beacons: string[] = [];
const wanted = ENDPOINTS.has('click') || ENDPOINTS.has('beacon') ? 4_000 : 0;
for (let i = VISITORS; i < VISITORS + 5_000 && clicks.length < wanted; i++) {
  const r = await fetch(`http://127.0.0.1:${enginePort}${impPath(i)}`, { headers: { ...widgetHeaders, 'x-forwarded-for': visitor(i).ip } });
  if (r.status !== 200) continue;
  const body = (await r.json()) as { click_url?: string; beacon_url?: string } | { click_url?: string; beacon_url?: string }[];
  const ad = Array.isArray(body) ? body[0] : body;
  if (!ad?.click_url || !ad.beacon_url) continue;
  const at = (u: string) => {
    const url = new URL(u);
    return `${url.pathname}${url.search}\t${visitor(i).ip}`;
  };
  clicks.push(at(ad.click_url));
  beacons.push(at(ad.beacon_url));
}
if (wanted && clicks.length === 0) throw new Error('no ad served to the click and beacon runs: the world or the zone is wrong');
const clickFile = join(work, 'click.txt');
const beaconFile = join(work, 'beacon.txt');
writeFileSync(clickFile, clicks.join('\n') + '\n');
writeFileSync(beaconFile, beacons.join('\n') + '\n');

const get = {
  WRK_METHOD: 'GET',
  WRK_HEADERS: Object.entries(widgetHeaders)
    .map(([k, v]) => `${k}: ${v}`)
    .join('\n'),
};
const rows: Row[] = [
  runWrk('bare uWS', 'POST /openrtb/bid', bare.port, [bare.proc.pid ?? 0], bidFile, {}),
  runWrk('bare uWS', 'GET', bare.port, [bare.proc.pid ?? 0], impFile, get),
];
if (ENDPOINTS.has('bid')) rows.push(runWrk('engine', 'POST /openrtb/bid', enginePort, [enginePid], bidFile, {}));
if (ENDPOINTS.has('imp')) rows.push(runWrk('engine', 'GET /imp', enginePort, [enginePid], impFile, get));
if (ENDPOINTS.has('click')) rows.push(runWrk('engine', 'GET /c', enginePort, [enginePid], clickFile, get));
if (ENDPOINTS.has('beacon')) rows.push(runWrk('engine', 'GET /b (impression beacon)', enginePort, [enginePid], beaconFile, get));

engine.proc.kill('SIGTERM');
bare.proc.kill('SIGTERM');
await new Promise((r) => engine.proc.once('exit', r));
await local.stop();
rmSync(work, { recursive: true, force: true });

const bareOf = (endpoint: string) =>
  rows.find((r) => r.target === 'bare uWS' && (endpoint.startsWith('POST') ? r.endpoint.startsWith('POST') : r.endpoint === 'GET'));
const result = {
  date: new Date().toISOString(),
  machine: { cpus: cpus().length, model: cpus()[0]?.model, node: process.version },
  method: `wrk 1 thread, ${CONNECTIONS} kept-alive connections, ${SECONDS} s per target, closed loop (a connection sends its next request when the answer arrives)`,
  world: { ...WORLD, visitors: VISITORS, clickTickets: clicks.length },
  rows: rows.map((r) => ({ ...r, shareOfTransport: r.target === 'engine' ? Math.round((r.rate / (bareOf(r.endpoint)?.rate ?? 1)) * 100) / 100 : null })),
};
const outDir = join(ROOT, 'bench', 'results');
mkdirSync(outDir, { recursive: true });
writeFileSync(join(outDir, 'wrk.json'), JSON.stringify(result, null, 2) + '\n');
const md = [
  `# Closed-loop throughput with wrk (${result.date})`,
  '',
  `Machine: ${result.machine.cpus} CPUs (${result.machine.model}), Node ${result.machine.node}; wrk, Redis and the server share it.`,
  `Method: ${result.method}. World: ${WORLD.campaigns} campaigns, ${WORLD.campaigns * WORLD.creativesPerCampaign} creatives; /imp from ${VISITORS} distinct visitors; /c and /b on ${clicks.length} served ads (each ticket counts once: repeats take the duplicate path).`,
  '',
  '| target | endpoint | req/s | share of bare uWS | p50 ms | p99 ms | p99.9 ms | errors | CPU us/req | RSS MiB |',
  '|---|---|---|---|---|---|---|---|---|---|',
  ...result.rows.map(
    (r) =>
      `| ${r.target} | ${r.endpoint} | ${r.rate} | ${r.shareOfTransport ?? '-'} | ${r.p50Ms} | ${r.p99Ms} | ${r.p999Ms} | ${r.errors} | ${r.cpuUsPerRequest} | ${r.rssMiB} |`,
  ),
  '',
].join('\n');
writeFileSync(join(outDir, 'wrk.md'), md);
writePlots();
process.stdout.write(md);
process.exit(0);
