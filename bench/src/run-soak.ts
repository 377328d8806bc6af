// `pnpm bench:soak`: the whole product as `pnpm start` runs it (launcher/src/start.ts: the admin with its
// ingester and embedded ClickHouse, and the engines), in a temp DATA_DIR on free ports, under a steady mixed
// load for BENCH_SOAK_MINUTES: OpenRTB bids; widget visits (/imp, the render beacon /b, a click /c on a third
// of the rendered ads, a signed conversion postback for half of those); VAST views (/vast, its impression pixel,
// its playback events); and a configuration change through the admin API every BENCH_SOAK_CHANGE_MS (a
// campaign's bid, a zone's floor, in turn). Every BENCH_SOAK_SAMPLE_SECONDS it samples each process's RSS
// (/proc) and V8 heap (its Prometheus metrics); at the end it drains the ingester, stops the product and
// counts the events in ClickHouse by type. Writes bench/results/soak.{json,md,svg}; exits 1 naming the
// failed checks (memory growth after the warm-up, events emitted = stored, no 5xx). Settings: soak-settings.ts.
import { spawn } from 'node:child_process';
import { randomBytes, createHmac } from 'node:crypto';
import { closeSync, mkdirSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigStore } from '@adnet/admin/config-store';
import { PasswordHasher } from '@adnet/admin/password';
import { UserStore } from '@adnet/admin/users';
import { INGEST_GROUP } from '@adnet/admin/ingester';
import { EVENT_STREAM } from '@adnet/schemas/redis-keys';
import { createClient } from '@clickhouse/client';
import { createChdbConnection } from 'chdb/connection';
import type { Redis } from 'ioredis';
import { ROOT } from './child.ts';
import { makeCorpus } from './corpus.ts';
import { freePort, startBenchRedis } from './local-redis.ts';
import { lineChart } from './plots.ts';
import { rssMiBExact } from './proc-stats.ts';
import { parseSoakSettings, SOAK_ACTIONS } from './soak-settings.ts';
import type { SoakAction, SoakSettings } from './soak-settings.ts';
import { soakVerdict } from './soak-verdict.ts';
import type { EventCount, MemorySample, ProcessSeries } from './soak-verdict.ts';
import { clickSignals, impRequest, NO_FORMAT_FIELDS, seedWidgetZone, WIDGET_HEADERS } from './widget-world.ts';
import { pageHeader } from './results-page.ts';
import { generateWorld, seedWorld } from './world.ts';

let settings: SoakSettings;
try {
  settings = parseSoakSettings(process.env);
} catch (e) {
  process.stderr.write(`${(e as Error).message}\n`);
  process.exit(2);
}

const ADVERTISERS = 20;
const WORLD = { campaigns: 2_000, creativesPerCampaign: 2, advertisers: ADVERTISERS };
const VIDEO_ZONE = 'soakvideo01';
const PASSWORD = 'soak-password-not-secret';
const MiB = 1024 * 1024;
const log = (line: string) => process.stderr.write(`${new Date().toISOString().slice(11, 19)} ${line}\n`);

// 1. Storage and the world: a Redis of the run's own, accounts with known postback secrets (advertisers 1..20,
// then the publisher), campaigns whose landing page names the campaign (the postback needs its advertiser).
const local = await startBenchRedis('adnet-soak-');
const dataDir = mkdtempSync(join(tmpdir(), 'adnet-soak-data-'));
const hash = await new PasswordHasher({ N: 2 ** 10, r: 8, p: 1 }).hash(PASSWORD);
const users = new UserStore(local.client);
const secrets = new Map<number, string>();
for (let a = 1; a <= ADVERTISERS + 1; a++) {
  const role = a <= ADVERTISERS ? 'advertiser' : 'publisher';
  const user = await users.create({
    email: `soak-${a}@example.com`,
    role,
    passwordHash: hash,
    postbackSecret: randomBytes(24).toString('hex'),
  });
  if (user?.id !== a) throw new Error(`expected user ${a}, made ${user?.id}: the Redis was not empty`);
  secrets.set(a, user.postbackSecret);
}
const PUBLISHER = ADVERTISERS + 1;
const world = generateWorld(WORLD);
for (const c of world.creatives) c.landing_url = 'https://shop.example.com/?c={click_id}&cmp={campaign_id}';
const advertiserOf = new Map(world.campaigns.map((c) => [c.id, c.advertiser_id]));
await seedWorld(local.url, WORLD, world);
await seedWidgetZone(local.url, PUBLISHER);
{
  const now = new Date().toISOString();
  const store = new ConfigStore(local.client, 1_000_000);
  await store.commit('zone', 2, {
    expectedRev: 0,
    value: {
      ...{ id: 2, site_id: 1, publisher_id: PUBLISHER, subid: VIDEO_ZONE, name: 'soak video', format: 'video' },
      ...{ status: 'active', created_at: now, updated_at: now, ...NO_FORMAT_FIELDS },
    },
  });
}

// 2. The product, as `pnpm start` runs it; its log in DATA_DIR (kept when the run fails).
const port = await freePort();
const metricsPort = await freePortRun(settings.engines + 1);
const base = `http://127.0.0.1:${port}`;
const logFile = join(dataDir, 'product.log');
const out = openSync(logFile, 'a');
const product = spawn(process.execPath, ['--import', 'tsx', 'launcher/src/start.ts'], {
  cwd: ROOT,
  env: {
    ...process.env,
    ...{
      DATA_DIR: dataDir,
      REDIS_URL: local.url,
      HOST: '127.0.0.1',
      PORT: String(port),
      METRICS_PORT: String(metricsPort),
    },
    ...{ ENGINE_PROCESSES: String(settings.engines), LOG_LEVEL: 'warn', TRACKING_SECRET: 's'.repeat(40) },
    // The load comes from 127.0.0.1 as the balancer, each visitor named by X-Forwarded-For; the admin API is
    // called once a second by one account, which its per-token limit would otherwise throttle.
    ...{ TRUSTED_PROXIES: '127.0.0.1/32', API_RATE_LIMIT_PER_MIN: '100000', PASSWORD_SCRYPT_LOG_N: '10' },
  },
  stdio: ['ignore', out, out],
});
const exited = new Promise<number | null>((r) => product.once('exit', (code) => r(code)));
let productExited = false;
void exited.then(() => (productExited = true));
const startedAt = performance.now();
for (;;) {
  if (productExited) await fail(`the product exited before it was ready; its log: ${logFile}`);
  const ready = await fetch(`${base}/readyz`).then(
    (r) => (void r.body?.cancel(), r.status),
    () => 0,
  );
  if (ready === 200) break;
  if (performance.now() - startedAt > 180_000)
    await fail(`the product was not ready within 3 minutes; its log: ${logFile}`);
  await sleep(250);
}
const engines = childrenOf(product.pid ?? 0).filter((pid) =>
  readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('main.ts'),
);
if (engines.length !== settings.engines)
  await fail(`found ${engines.length} engine processes, expected ${settings.engines}`);
const watched = [
  { name: 'admin', pid: product.pid ?? 0, metrics: metricsPort, checked: true },
  ...engines.map((pid, i) => ({
    name: `engine ${i + 1}`,
    pid,
    metrics: Number(environOf(pid).METRICS_PORT),
    checked: true,
  })),
  { name: 'redis', pid: local.pid, metrics: 0, checked: false },
];
log(
  `product ready in ${Math.round(performance.now() - startedAt)} ms: admin pid ${product.pid}, engines ${engines.join(', ')}`,
);

// 3. The load.
const statuses = new Map<string, Map<number, number>>();
const record = (route: string, status: number) => {
  const m = statuses.get(route) ?? new Map<number, number>();
  m.set(status, (m.get(status) ?? 0) + 1);
  statuses.set(route, m);
};
/** A request of the load; status 0 when no answer came. */
async function call(route: string, url: string, init: RequestInit = {}): Promise<Response | undefined> {
  try {
    const res = await fetch(url, { ...init, signal: AbortSignal.timeout(10_000) });
    record(route, res.status);
    return res;
  } catch {
    record(route, 0);
    return undefined;
  }
}
const drain = (r: Response | undefined) => r?.body?.cancel().catch(() => undefined);
const loadCounts = { impressions: 0, clicks: 0, conversions: 0 };
/** Postbacks the product asked to send again (a click still on its way from the journal). */
let postbackRetries = 0;

const bids = makeCorpus(1_000);
let bidIndex = 0;
let visitor = 1_000_000;
const actions: Record<SoakAction, () => Promise<void>> = {
  async bid() {
    const body = bids[bidIndex++ % bids.length] as Buffer;
    const init = {
      method: 'POST',
      body: new Uint8Array(body),
      headers: { 'content-type': 'application/json', 'x-openrtb-version': '2.5' },
    };
    await drain(await call('POST /openrtb/bid', `${base}/openrtb/bid`, init));
  },
  async imp() {
    const i = visitor++;
    const req = impRequest(i);
    const headers = { ...WIDGET_HEADERS, 'x-forwarded-for': req.ip };
    const res = await call('GET /imp', `${base}${req.path}`, { headers });
    if (res?.status !== 200) return void (await drain(res));
    const ad = (await res.json()) as { beacon_url?: string; click_url?: string };
    if (!ad.beacon_url || !ad.click_url) return;
    // The widget's render beacon, then (a third of the ads) the click, which counts only after it.
    const beacon = await call('GET /b', ad.beacon_url, { headers });
    await drain(beacon);
    if (beacon?.status !== 200) return;
    loadCounts.impressions++;
    if (i % 3 !== 0) return;
    const click = await call('GET /c', `${ad.click_url}${clickSignals(i)}`, { headers, redirect: 'manual' });
    await drain(click);
    if (click?.status !== 302) return;
    loadCounts.clicks++;
    const landing = new URL(click.headers.get('location') ?? 'http://x/');
    const clickId = landing.searchParams.get('c');
    const advertiser = advertiserOf.get(Number(landing.searchParams.get('cmp')));
    // A tracker reports a sale a while after the click: a click answered late (past REDIS_DEADLINE_MS, its
    // work still going on, docs/operations.md) has its record in Redis only when that work ends.
    if (i % 2 === 0 && clickId && advertiser) {
      await sleep(2_000);
      await postback(i, clickId, advertiser);
    }
  },
  async vast() {
    const req = impRequest(visitor++);
    const headers = { 'user-agent': WIDGET_HEADERS['user-agent'] as string, 'x-forwarded-for': req.ip };
    const res = await call('GET /vast', `${base}/vast/${VIDEO_ZONE}.xml`, { headers });
    const xml = res ? await res.text() : '';
    const pixel = /<Impression id="imp"><!\[CDATA\[(.+?)\]\]>/.exec(xml)?.[1];
    if (!pixel) return;
    const seen = await call('GET /openrtb/imptracker', pixel, { headers });
    await drain(seen);
    if (seen?.status !== 200) return;
    loadCounts.impressions++;
    // The player's playback events, in order, after its impression.
    for (const m of xml.matchAll(
      /<Tracking event="(start|firstQuartile|midpoint|thirdQuartile|complete)"><!\[CDATA\[(.+?)\]\]>/g,
    ))
      await drain(await call('GET /t/vast', m[2] as string, { headers }));
  },
};

/**
 * The advertiser's tracker reports an approved sale for the click, signed with the advertiser's postback secret
 * (docs/conversions.md). Like a tracker, it tries again when asked to (503 with Retry-After: the click is still
 * on its way from the journal), up to 5 times; only the last answer is counted as the postback's.
 */
async function postback(i: number, clickId: string, advertiser: number): Promise<void> {
  const f = { click_id: clickId, payout: String(100 + (i % 900)), status: 'approved', txid: `soak-${i}` };
  const secret = secrets.get(advertiser) as string;
  const sig = createHmac('sha256', secret).update(`${f.click_id}|${f.payout}|${f.status}|${f.txid}`).digest('hex');
  const send = () =>
    fetch(`${base}/postback/in`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        'x-service-secret': secret,
        'x-service-signature': sig,
      },
      body: new URLSearchParams(f).toString(),
      signal: AbortSignal.timeout(10_000),
    }).catch(() => undefined);
  let res = await send();
  for (let attempt = 1; attempt < 5 && res?.status === 503 && res.headers.get('retry-after'); attempt++) {
    postbackRetries++;
    await drain(res);
    await sleep(Number(res.headers.get('retry-after')) * 1_000);
    res = await send();
  }
  record('POST /postback/in', res?.status ?? 0);
  if (res?.status !== 200) return void (await drain(res));
  const receipt = (await res.json()) as { duplicate?: boolean; status?: string };
  if (!receipt.duplicate && receipt.status === 'approved') loadCounts.conversions++;
}

async function token(email: string): Promise<string> {
  const res = await fetch(`${base}/api/auth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, password: PASSWORD }),
  });
  const body = (await res.json()) as { token?: string };
  if (!body.token) await fail(`sign-in of ${email} answered ${res.status}: ${JSON.stringify(body)}`);
  return body.token as string;
}
const advToken = await token('soak-1@example.com');
const pubToken = await token(`soak-${PUBLISHER}@example.com`);
const ownCampaigns = world.campaigns.filter((c) => c.advertiser_id === 1).map((c) => c.id);
let change = 0;
/** One configuration change through the admin API, as an advertiser or a publisher makes it: a campaign's bid, then a zone's floor. */
async function configChange(): Promise<void> {
  const k = change++;
  if (k % 2 === 0) {
    const id = ownCampaigns[(k / 2) % ownCampaigns.length] as number;
    const init = {
      method: 'PATCH',
      headers: { authorization: `Bearer ${advToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ bid_usd: 1 + (k % 50) / 10 }),
    };
    await drain(await call('PATCH /api/adv/campaigns', `${base}/api/adv/campaigns/${id}`, init));
  } else {
    // A floor far below every bid of the world (or none): the change travels to the engines without emptying the zone.
    const floor = k % 4 === 1 ? 0.00001 : null;
    const init = {
      method: 'PATCH',
      headers: { authorization: `Bearer ${pubToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ floor_cpm_usd: floor }),
    };
    await drain(await call('PATCH /api/pub/zones', `${base}/api/pub/zones/1`, init));
  }
}

// 4. Run: actions at the rate, in the mix's proportions, interleaved; samples every SAMPLE seconds.
const samples = new Map<string, MemorySample[]>(watched.map((w) => [w.name, []]));
const inFlight = new Set<Promise<void>>();
const MAX_IN_FLIGHT = 2_000;
let skipped = 0;
const track = (p: Promise<void>) => {
  inFlight.add(p);
  void p.finally(() => inFlight.delete(p));
};
const cycle = SOAK_ACTIONS.flatMap((a) => Array<SoakAction>(settings.mix[a]).fill(a));
const t0 = performance.now();
const endAt = t0 + settings.minutes * 60_000;
async function sample(): Promise<void> {
  const t = Math.round((performance.now() - t0) / 100) / 10;
  await Promise.all(
    watched.map(async (w) => {
      // A process gone (the product stopping on its own) has no sample; the run then fails on its exit.
      const rss = (() => {
        try {
          return rssMiBExact(w.pid);
        } catch {
          return undefined;
        }
      })();
      if (rss === undefined) return;
      const s: MemorySample = { t, rssMiB: rss };
      if (w.metrics) {
        const heap = await scrape(w.metrics).then(
          (text) => /^adnet_\w+_nodejs_heap_size_used_bytes(?:\{[^}]*\})? ([\d.e+]+)$/m.exec(text)?.[1],
        );
        if (heap) s.heapMiB = Math.round((Number(heap) / MiB) * 1000) / 1000;
      }
      samples.get(w.name)?.push(s);
    }),
  );
  const line = watched.map((w) => {
    const s = samples.get(w.name)?.at(-1);
    return `${w.name} ${s?.rssMiB.toFixed(0)} MiB${s?.heapMiB === undefined ? '' : ` (heap ${s.heapMiB.toFixed(0)})`}`;
  });
  log(`${t.toFixed(0)} s: ${line.join(', ')}; ${inFlight.size} in flight`);
}
log(
  `load: ${settings.rate} actions/s (${JSON.stringify(settings.mix)}) for ${settings.minutes} min, warm-up ${settings.warmupMinutes} min`,
);
await sample();
const sampler = setInterval(() => void sample(), settings.sampleSeconds * 1_000);
const changer = setInterval(() => track(configChange()), settings.changeMs);
let sent = 0;
while (performance.now() < endAt && !productExited) {
  const due = Math.floor(((performance.now() - t0) / 1_000) * settings.rate);
  for (; sent < due; sent++) {
    if (inFlight.size >= MAX_IN_FLIGHT) {
      skipped++;
      continue;
    }
    track(actions[cycle[sent % cycle.length] as SoakAction]());
  }
  await sleep(20);
}
clearInterval(changer);
clearInterval(sampler);
await Promise.allSettled([...inFlight]);
if (productExited) await fail(`the product exited during the run; its log: ${logFile}`);
await sample();

// 5. Drain: the engines flush every EVENT_FLUSH_MS; the ingester has everything once the stream has nothing
// undelivered or unacknowledged twice, a second apart. Then the engines' own counts, then stop and count.
await sleep(1_000);
const drainStarted = performance.now();
for (let clean = 0; clean < 2;) {
  clean = (await backlogEmpty(local.client)) ? clean + 1 : 0;
  if (performance.now() - drainStarted > 300_000)
    await fail('the ingester did not drain the event stream within 5 minutes');
  await sleep(1_000);
}
const emitted = new Map<string, number>();
for (const w of watched.filter((x) => x.name.startsWith('engine'))) {
  for (const m of (await scrape(w.metrics)).matchAll(/^adnet_engine_events_total\{([^}]*)\} (\d+)$/gm)) {
    const type = /type="([^"]+)"/.exec(m[1] as string)?.[1] as string;
    emitted.set(type, (emitted.get(type) ?? 0) + Number(m[2]));
  }
}
// Conversions are the admin's events: what it accepted as new approved ones.
if (loadCounts.conversions) emitted.set('conversion', loadCounts.conversions);
product.kill('SIGTERM');
await exited;
closeSync(out);
const stored = await countInClickHouse(join(dataDir, 'clickhouse'));
const streamLength = await local.client.xlen(EVENT_STREAM);
await local.stop();

// 6. Verdict and results.
const loadOf: Record<string, number> = {
  impression: loadCounts.impressions,
  click: loadCounts.clicks,
  conversion: loadCounts.conversions,
};
const counts: EventCount[] = [...new Set([...emitted.keys(), ...stored.keys()])].sort().map((type) => ({
  type,
  emitted: emitted.get(type) ?? 0,
  stored: stored.get(type) ?? 0,
  ...(type in loadOf ? { load: loadOf[type] } : {}),
}));
const serverErrors: Record<string, number> = {};
for (const [route, m] of statuses) {
  const bad = [...m].filter(([s]) => s >= 500 || s === 0).reduce((n, [, c]) => n + c, 0);
  if (bad) serverErrors[route] = bad;
}
const processes: ProcessSeries[] = watched.map((w) => ({
  name: w.name,
  checked: w.checked,
  samples: samples.get(w.name) ?? [],
}));
const verdict = soakVerdict({
  processes,
  warmupSeconds: settings.warmupMinutes * 60,
  maxSlopeMiBPerMin: settings.maxSlopeMiBPerMin,
  counts,
  serverErrors,
});
const requests = Object.fromEntries(
  [...statuses].sort().map(([route, m]) => [route, Object.fromEntries([...m].sort((a, b) => a[0] - b[0]))]),
);
const result = {
  date: new Date().toISOString(),
  machine: {
    cpus: cpus().length,
    model: cpus()[0]?.model,
    node: process.version,
    loadAverageEnd: Math.round((loadavg()[0] ?? 0) * 10) / 10,
  },
  settings,
  world: { ...WORLD, zones: ['banner 300x250 (widget)', 'video (VAST)'] },
  method:
    "the product as `pnpm start` runs it (launcher/src/start.ts, embedded ClickHouse, Redis of its own), open-model actions at the rate: an OpenRTB bid; a widget visit (/imp, render beacon /b, a click /c on every third ad rendered, a signed approved postback for every other click); a VAST view (/vast, impression pixel, five playback events); a configuration change through the admin API every BENCH_SOAK_CHANGE_MS (a campaign bid, a zone floor, in turn). RSS from /proc, V8 heap in use from each process's Prometheus metrics; slopes by least squares after the warm-up",
  ok: verdict.ok,
  checks: verdict.checks,
  slopes: verdict.slopes,
  events: counts,
  requests,
  skippedActions: skipped,
  postbackRetries,
  streamEntriesLeft: streamLength,
  samples: Object.fromEntries(samples),
};
const dir = join(ROOT, 'bench', 'results');
mkdirSync(dir, { recursive: true });
writeFileSync(join(dir, 'soak.json'), JSON.stringify(result, null, 2) + '\n');
const plotSeries = processes.flatMap((p) => [
  {
    name: `${p.name} RSS`,
    points: p.samples.map((s) => [Math.round((s.t / 60) * 100) / 100, Math.round(s.rssMiB)] as const),
  },
  ...(p.samples.some((s) => s.heapMiB !== undefined)
    ? [
        {
          name: `${p.name} heap`,
          points: p.samples.flatMap((s) =>
            s.heapMiB === undefined ? [] : [[Math.round((s.t / 60) * 100) / 100, Math.round(s.heapMiB)] as const],
          ),
        },
      ]
    : []),
]);
writeFileSync(
  join(dir, 'soak.svg'),
  lineChart(`Soak: memory over ${settings.minutes} min at ${settings.rate} actions/s`, 'minutes', 'MiB', plotSeries),
);
const md = [
  `# Soak (${result.date})`,
  '',
  ...pageHeader('npx -y pnpm@10.34.8 bench:soak'),
  `Machine: ${result.machine.cpus} CPUs (${result.machine.model}), Node ${result.machine.node}; the load, Redis and the product share it (load average ${result.machine.loadAverageEnd} at the end).`,
  `Settings: ${settings.minutes} min, warm-up ${settings.warmupMinutes} min, ${settings.rate} actions/s (mix ${JSON.stringify(settings.mix)}), ${settings.engines} engine(s), samples every ${settings.sampleSeconds} s, growth limit ${settings.maxSlopeMiBPerMin} MiB/min.`,
  `Method: ${result.method}.`,
  '',
  `**${verdict.ok ? 'Passed' : 'FAILED'}.** Plot: \`soak.svg\`.`,
  '',
  '| process | samples after warm-up | RSS MiB/min | heap MiB/min | RSS MiB first / last / max |',
  '|---|---|---|---|---|',
  ...verdict.slopes.map(
    (s) =>
      `| ${s.name} | ${s.samples} | ${s.rssMiBPerMin ?? '-'} | ${s.heapMiBPerMin ?? '-'} | ${Math.round(s.rssMiB.first)} / ${Math.round(s.rssMiB.last)} / ${Math.round(s.rssMiB.max)} |`,
  ),
  '',
  '| event type | emitted | in ClickHouse | counted by the load |',
  '|---|---|---|---|',
  ...counts.map((c) => `| ${c.type} | ${c.emitted} | ${c.stored} | ${c.load ?? '-'} |`),
  '',
  '| route | answers by status |',
  '|---|---|',
  ...Object.entries(requests).map(
    ([route, m]) =>
      `| ${route} | ${Object.entries(m)
        .map(([s, n]) => `${s === '0' ? 'no answer' : s}: ${n}`)
        .join(', ')} |`,
  ),
  '',
  `Actions skipped (${MAX_IN_FLIGHT} in flight): ${skipped}. Postbacks asked to retry (a click still on its way from the journal) and sent again: ${postbackRetries}.`,
  '',
  '| check | result | detail |',
  '|---|---|---|',
  ...verdict.checks.map((c) => `| ${c.name} | ${c.ok ? 'ok' : '**failed**'} | ${c.detail} |`),
  '',
].join('\n');
writeFileSync(join(dir, 'soak.md'), md);
process.stdout.write(md);
if (!verdict.ok) {
  process.stderr.write(
    `bench:soak failed: ${verdict.checks
      .filter((c) => !c.ok)
      .map((c) => `${c.name} (${c.detail})`)
      .join('; ')}\nthe product's data and log: ${dataDir}\n`,
  );
  process.exit(1);
}
rmSync(dataDir, { recursive: true, force: true });
process.exit(0);

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

async function fail(message: string): Promise<never> {
  process.stderr.write(`bench:soak: ${message}\n`);
  if (!productExited) product.kill('SIGTERM');
  await local.stop().catch(() => undefined);
  process.exit(1);
}

/** `count` consecutive free ports (the admin's metrics port, then one per engine, as the launcher numbers them). */
async function freePortRun(count: number): Promise<number> {
  const { createServer } = await import('node:net');
  const free = (p: number) =>
    new Promise<boolean>((resolve) => {
      const s = createServer();
      s.once('error', () => resolve(false));
      s.listen(p, '127.0.0.1', () => s.close(() => resolve(true)));
    });
  for (;;) {
    const first = await freePort();
    if (first + count > 65_535) continue;
    let ok = true;
    for (let p = first + 1; p < first + count && ok; p++) ok = await free(p);
    if (ok) return first;
  }
}

function childrenOf(parent: number): number[] {
  return readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .filter((d) => {
      try {
        const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
        return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === parent;
      } catch {
        return false;
      }
    })
    .map(Number)
    .sort((a, b) => a - b);
}

function environOf(pid: number): Record<string, string> {
  return Object.fromEntries(
    readFileSync(`/proc/${pid}/environ`, 'utf8')
      .split('\0')
      .filter(Boolean)
      .map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]),
  );
}

async function scrape(metrics: number): Promise<string> {
  return fetch(`http://127.0.0.1:${metrics}/metrics`).then(
    (r) => r.text(),
    () => '',
  );
}

/** Nothing waits for ClickHouse: nothing pending at the ingest group, nothing after what it was last given. */
async function backlogEmpty(redis: Redis): Promise<boolean> {
  const [pending] = (await redis.xpending(EVENT_STREAM, INGEST_GROUP)) as [number, ...unknown[]];
  if (pending > 0) return false;
  const groups = (await redis.xinfo('GROUPS', EVENT_STREAM)) as unknown[][];
  const row = groups
    .map((g) => Object.fromEntries(Array.from({ length: g.length / 2 }, (_, i) => [String(g[2 * i]), g[2 * i + 1]])))
    .find((g) => g.name === INGEST_GROUP);
  const delivered = typeof row?.['last-delivered-id'] === 'string' ? row['last-delivered-id'] : '0-0';
  return (await redis.xrange(EVENT_STREAM, `(${delivered}`, '+', 'COUNT', 1)).length === 0;
}

/** Rows in the product's embedded ClickHouse by event type, read once the product has stopped. */
async function countInClickHouse(path: string): Promise<Map<string, number>> {
  type ClientConnection = NonNullable<Parameters<typeof createClient>[0]>['connection'];
  const ch = createClient({ connection: createChdbConnection({ path }) as unknown as ClientConnection });
  const rows = await (
    await ch.query({ query: 'SELECT type, count() AS n FROM adnet.events GROUP BY type', format: 'JSONEachRow' })
  ).json<{ type: string; n: string | number }>();
  await ch.close();
  return new Map(rows.map((r) => [r.type, Number(r.n)]));
}
