import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { StoredSite } from '@adnet/schemas/publisher';
import fc from 'fast-check';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { account, call, startApp } from '@adnet/test-support/admin';
import type { Account, TestApp } from '@adnet/test-support/admin';
import { answerProblems } from '@adnet/test-support/answer-checks';
import { eventually, postBid, startEngine, streamedEvents } from '@adnet/test-support/engine';
import type { TestEngine } from '@adnet/test-support/engine';
import { acceptedState, footprint, lostSince, serveAndClick, serveWorld } from '@adnet/test-support/hostile-world';
import type { Accepted, Footprint } from '@adnet/test-support/hostile-world';
import { POSTBACK_FAMILY, REST_FAMILIES } from '@adnet/test-support/hostile-admin-requests';
import { ENGINE_FAMILIES } from '@adnet/test-support/hostile-engine-requests';
import { PROTOCOL_FAMILY, STATIC_FAMILY, TRPC_FAMILY } from '@adnet/test-support/hostile-protocol-requests';
import { describeRequest } from '@adnet/test-support/hostile-requests';
import type { Family, HostileContext, HostileRequest, TokenKind } from '@adnet/test-support/hostile-requests';
import { NoAnswerError, rawRequest } from '@adnet/test-support/raw-http';
import type { RawResponse } from '@adnet/test-support/raw-http';
import { ingestAll } from '@adnet/test-support/ingest-all';
import { freePort, startRedis } from '@adnet/test-support/redis';
import type { TestRedis } from '@adnet/test-support/redis';
import { World, bannerRequest } from '@adnet/test-support/world';

// Property-based hostile input against the real admin and a real engine (with its proxy to the
// admin), after a small world has served real traffic. Every public path gets random and
// adversarial bodies, headers, query strings, encodings, sizes and nesting; every answer must be
// as the product promises (support/answer-checks.ts), the servers must still answer afterwards,
// Redis must stay bounded, and what the world had accepted must still be there.
//
// HOSTILE_SEED=<n> runs with another seed (each family's own is derived from it); HOSTILE_ONLY=<text>
// runs the families whose name contains it; HOSTILE_PATH=<path> (with HOSTILE_ONLY=<a family's name>)
// replays fast-check's counterexample; HOSTILE_RUNS=<factor> scales the runs; HOSTILE_NO_SHRINK=1 stops
// at the first failure. A failure prints the line that replays it (docs/security.md).

const SEED = Number(process.env.HOSTILE_SEED ?? 20_261_116);
const SCALE = Number(process.env.HOSTILE_RUNS ?? 1);
const ONLY = process.env.HOSTILE_ONLY;
const REPLAY_PATH = process.env.HOSTILE_PATH;
/** Longer than any honest answer here (site verification gives up after VERIFY_TIMEOUT_MS): past it the request hangs. */
const ANSWER_TIMEOUT_MS = 15_000;
const TEST_TIMEOUT_MS = 120_000 * Math.max(1, SCALE);

let redis: TestRedis;
let app: TestApp;
let engine: TestEngine;
let probe: Redis;
let ctx: HostileContext;
const cabinetDir = mkdtempSync(join(tmpdir(), 'hostile-cabinet-'));
const accounts = {} as Record<'advertiser' | 'publisher' | 'admin', Account>;
let before: { accepted: Accepted; footprint: Footprint; eventTypes: Map<string, number> };

/** What was sent and how it was answered, for the bounds below and the summary. */
const tally = {
  sent: 0,
  bodyBytes: 0,
  /** 2xx answers to requests that may write (anything but GET and HEAD). */
  acceptedWrites: 0,
  /** Sign-in and sign-up attempts: each may leave throttle keys for the email or address it named. */
  authAttempts: 0,
  families: new Map<string, Map<string, number>>(),
  /** The slowest answers, for a look at what costs the servers most. */
  slowest: [] as { ms: number; what: string }[],
};

/** The last requests sent, for a failure that an earlier request may have caused. */
const recent: string[] = [];

function record(r: HostileRequest, res: RawResponse): void {
  recent.push(`${describeRequest(r).slice(0, 400)} -> ${res.status}`);
  if (recent.length > 5) recent.shift();
  tally.sent++;
  tally.bodyBytes += r.body?.length ?? 0;
  tally.slowest.push({ ms: res.ms, what: `${describeRequest(r).slice(0, 300)} -> ${res.status}` });
  tally.slowest.sort((a, b) => b.ms - a.ms).splice(5);
  if (res.status >= 200 && res.status < 300 && r.method !== 'GET' && r.method !== 'HEAD') tally.acceptedWrites++;
  // The per-address limited paths: each may leave one expiring limiter or queued-mail key.
  if (/auth[/.](token|session|register|verify-?email|password-?reset)/i.test(String(r.target))) tally.authAttempts++;
  const byStatus = tally.families.get(`${r.family} via ${r.via}`) ?? new Map<string, number>();
  const key = res.status === 0 ? 'closed' : String(res.status);
  byStatus.set(key, (byStatus.get(key) ?? 0) + 1);
  tally.families.set(`${r.family} via ${r.via}`, byStatus);
}

function authorization(kind: TokenKind): [string, string][] {
  switch (kind) {
    case 'none':
      return [];
    case 'garbage':
      return [['authorization', 'Bearer 1|not-a-token']];
    case 'malformed':
      return [['authorization', `bearer  ${accounts.advertiser.token}x trailing`]];
    case 'cabinet':
      return [
        ['cookie', `adnet_session=${accounts.advertiser.token}`],
        ['x-adnet-cabinet', '1'],
        ['sec-fetch-site', 'same-origin'],
      ];
    default:
      return [['authorization', `Bearer ${accounts[kind].token}`]];
  }
}

/** The account whose token a request carries (the cabinet's cookie holds the advertiser's). */
const accountOf = (kind: TokenKind): keyof typeof accounts | undefined =>
  kind === 'cabinet'
    ? 'advertiser'
    : kind === 'advertiser' || kind === 'publisher' || kind === 'admin'
      ? kind
      : undefined;

/**
 * The suite never makes the admin call out of this machine: before a request that could verify a
 * site or test the postback URL, the hostile accounts' sites are kept on names that resolve to a
 * closed local port and their postback pattern on a loopback address (which the admin refuses). The
 * postback worker does not run here, so queued conversions call nobody.
 */
async function keepOutgoingLocal(r: HostileRequest): Promise<void> {
  const target = String(r.target);
  if (r.token === 'publisher' && (target.includes('verify') || r.trpc)) {
    const sites = await call<{ sites?: { id: number; domain: string }[] }>(app, 'GET', '/api/pub/sites', {
      token: accounts.publisher.token,
    });
    for (const s of sites.body.sites ?? [])
      if (!/\.(test|example)$/.test(s.domain))
        await app.svc.configStore.update<StoredSite>(
          'site',
          s.id,
          (v) => ({ value: { ...v, domain: `site-${s.id}.test` } }),
          () => new Error('site'),
        );
  }
  if (accountOf(r.token) === 'advertiser' && (target.includes('postback-test') || r.trpc)) {
    const profile = await call<{ postback_url?: string | null }>(app, 'GET', '/api/adv/profile', {
      token: accounts.advertiser.token,
    });
    const url = profile.body.postback_url;
    if (url && !url.startsWith('http://127.0.0.1:9/'))
      await call(app, 'PATCH', '/api/adv/profile', {
        token: accounts.advertiser.token,
        json: { postback_url: 'http://127.0.0.1:9/pb?c={click_id}' },
      });
  }
}

async function send(r: HostileRequest): Promise<RawResponse> {
  await keepOutgoingLocal(r);
  const res = await rawRequest(
    r.via === 'engine' ? engine.base : app.base,
    {
      method: r.method,
      target: r.target,
      headers: [...r.headers, ...authorization(r.token)],
      body: r.body,
      framing: r.framing,
    },
    ANSWER_TIMEOUT_MS,
  );
  record(r, res);
  // A sign-out with a hostile account's token revokes it: the next requests get a fresh one.
  const owner = accountOf(r.token);
  if (owner && (res.status === 401 || (res.status === 200 && String(r.target).includes('logout'))))
    accounts[owner].token = (await app.svc.tokens.issue(accounts[owner].id, owner, 3_600)).token;
  return res;
}

const countTypes = (events: readonly { type?: string }[]) => {
  const out = new Map<string, number>();
  for (const { type = '?' } of events) out.set(type, (out.get(type) ?? 0) + 1);
  return out;
};

const seedOf = (name: string) => {
  let h = SEED >>> 0;
  for (const c of name) h = (Math.imul(h ^ c.charCodeAt(0), 16_777_619) >>> 0) % 2 ** 31;
  return h;
};

/** Sends one request and says what is wrong with its answer, if anything. */
async function tryOne(r: HostileRequest): Promise<string | undefined> {
  let res: RawResponse;
  try {
    res = await send(r);
  } catch (err) {
    if (err instanceof NoAnswerError) return `${describeRequest(r)}\n-> ${err.message}\nafter:\n${recent.join('\n')}`;
    throw err;
  }
  const head = r.headers.reduce(
    (n, [k, v]) => n + k.length + Buffer.byteLength(v) + 4,
    Buffer.byteLength(r.target) + r.method.length + 12,
  );
  const problems = answerProblems(res, {
    protocolLevel: r.protocolLevel,
    trpc: r.trpc,
    head: r.method === 'HEAD',
    oversizedHead: head > 16 * 1024,
  });
  return problems.length > 0
    ? `${describeRequest(r)}\n-> ${res.status} ${res.body.toString('utf8').slice(0, 300)}\n${problems.join('\n')}`
    : undefined;
}

/** Runs `runs` generated requests of one family; a failure says how to replay it. */
async function hammer(family: Family, runs: number): Promise<void> {
  // Replaying a path needs the one family it came from.
  if (ONLY && (REPLAY_PATH ? family.name !== ONLY : !family.name.includes(ONLY))) return;
  const seed = seedOf(family.name);
  const out = await fc.check(
    fc.asyncProperty(family.arb(ctx), async (r) => {
      const problem = await tryOne(r);
      if (problem) throw new Error(problem);
    }),
    {
      seed,
      path: REPLAY_PATH,
      numRuns: Math.max(1, Math.round(runs * SCALE)),
      endOnFailure: process.env.HOSTILE_NO_SHRINK === '1',
      // Shrinking a failure against live servers is bounded: the first counterexample and its seed are enough to replay it.
      interruptAfterTimeLimit: 60_000 * Math.max(1, SCALE),
      markInterruptAsFailure: true,
    },
  );
  if (out.failed) {
    const replay = `HOSTILE_SEED=${SEED} HOSTILE_ONLY='${family.name}' HOSTILE_PATH='${out.counterexamplePath ?? ''}'`;
    throw new Error(`${family.name}: replay with ${replay}\n${fc.defaultReportMessage(out)}`);
  }
}

/** The servers still answer: the admin directly and through the engine's proxy, the engine's own probe, and a bid. */
async function stillUp(): Promise<void> {
  for (const url of [`${app.base}/healthz`, `${engine.base}/healthz`, `${engine.base}/engine/healthz`])
    expect((await fetch(url)).status, url).toBe(200);
  expect((await postBid(engine.base, bannerRequest({ id: 'probe' }))).status).toBeLessThan(500);
}

beforeAll(async () => {
  console.log(`hostile-input: seed ${SEED} (rerun with HOSTILE_SEED=${SEED})`);
  redis = await startRedis();
  // A built cabinet of two files, for the static paths to walk around in.
  mkdirSync(join(cabinetDir, 'assets'), { recursive: true });
  writeFileSync(join(cabinetDir, 'index.html'), '<!doctype html><title>cabinet</title>');
  writeFileSync(join(cabinetDir, 'assets', 'app.js'), 'void 0;');
  const closed = String(await freePort());
  app = await startApp(
    redis.url,
    {
      VERIFY_STATIC_HOSTS: '*.test=127.0.0.1,*.example=127.0.0.1',
      VERIFY_ALLOW_LOOPBACK: 'true',
      VERIFY_HTTP_PORT: closed,
      VERIFY_HTTPS_PORT: closed,
      VERIFY_TIMEOUT_MS: '500',
      POSTBACK_TIMEOUT_MS: '500',
      INGEST_FLUSH_MS: '100',
    },
    // The ingester runs as in `pnpm start`: what the run produces must not poison the statistics pipeline.
    { clickhouse: true, cabinetDir, parts: ['ingester'] },
  );
  engine = await startEngine(redis.url, { PUSH_SERVICE_HOSTS: 'push.test' }, { adminUpstream: app.base });
  probe = new Redis(redis.url);
  const world = await World.create(app);
  const served = await serveWorld(world, engine);

  // The hostile accounts: their own resources are what valid tokens reach past 404s.
  accounts.advertiser = await world.advertiser(50_000);
  accounts.admin = await account(app, 'admin');
  const own = await world.campaign(accounts.advertiser, { format: 'native', bid_usd: 0.5 });
  const ownVideo = await call<{ id: number }>(app, 'POST', '/api/adv/campaigns', {
    token: accounts.advertiser.token,
    json: { name: 'V', vertical: 'ecommerce', format: 'video', bid_type: 'cpm', bid_usd: 1, daily_budget_usd: 10 },
  });
  const site = await world.site();
  accounts.publisher = site.publisher;
  await app.svc.configStore.update<StoredSite>(
    'site',
    site.id,
    (v) => ({ value: { ...v, domain: `site-${site.id}.test` } }),
    () => new Error('site'),
  );
  const zone = await world.zone({ format: 'native' }, site);
  const partner = await call<{ id: number }>(app, 'POST', '/api/admin/partners', {
    token: accounts.admin.token,
    json: { name: 'Hostile exchange', allowed_ips: ['198.51.100.1'], qps_limit: 10 },
  });
  const secret = String(
    (await call(app, 'GET', '/api/adv/profile', { token: accounts.advertiser.token })).body.postback_secret,
  );
  const worldCreatives = await call<{ creatives: { id: number }[] }>(
    app,
    'GET',
    `/api/adv/campaigns/${served.campaignIds[0]}/creatives`,
    {
      token: served.advertiser.token,
    },
  );
  await eventually(
    () =>
      engine.engine.mirror.index?.candidateCount === 3 &&
      engine.engine.mirror.index.zones.get(zone.subid)?.serving === true,
  );
  const ownClickIds = [
    (await serveAndClick(engine, zone.subid, 'own-fp-1')).clickId,
    (await serveAndClick(engine, zone.subid, 'own-fp-2')).clickId,
  ];
  ctx = {
    world: served,
    ownZone: zone.subid,
    ownClickIds,
    worldCreativeIds: worldCreatives.body.creatives.map((c) => c.id),
    own: {
      advertiserId: accounts.advertiser.id,
      campaignId: own.campaign.id,
      videoCampaignId: ownVideo.body.id,
      creativeId: own.creativeId,
      siteId: site.id,
      zoneId: zone.id,
      partnerId: partner.body.id,
    },
    advertiserSecret: secret,
    today: new Date().toISOString().slice(0, 10),
  };
  before = {
    accepted: await acceptedState(probe),
    footprint: await footprint(probe),
    eventTypes: countTypes(await streamedEvents(probe)),
  };
}, 60_000);

afterAll(async () => {
  const families = [...tally.families.entries()].sort(([a], [b]) => a.localeCompare(b));
  const lines = families.map(
    ([name, statuses]) => `  ${name}: ${[...statuses.entries()].map(([s, n]) => `${s}x${n}`).join(' ')}`,
  );
  console.log(
    `hostile-input: seed ${SEED}; ${tally.sent} requests (${(tally.bodyBytes / 2 ** 20).toFixed(1)} MiB of bodies) over ${families.length} path families\n${lines.join('\n')}`,
    `\nslowest answers:\n${tally.slowest.map((s) => `  ${Math.round(s.ms)} ms ${s.what}`).join('\n')}`,
  );
  probe?.disconnect();
  await engine?.stop();
  await app?.close();
  await redis?.stop();
  rmSync(cabinetDir, { recursive: true, force: true });
});

describe('hostile input', () => {
  it(
    'the engine public paths: bids, win and billing notices, pixels, VAST tracking, the widget, /imp, beacons, /vast, clicks, push',
    async () => {
      for (const family of ENGINE_FAMILIES) await hammer(family, 80);
      await stillUp();
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'the tracker postback, signed and not, as a form, headers or a query, directly and through the proxy',
    async () => {
      await hammer(POSTBACK_FAMILY, 200);
      await stillUp();
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'every /api route of the REST table, with and without a token, directly and through the proxy',
    async () => {
      // The multipart upload has the most ways to be malformed.
      for (const family of REST_FAMILIES)
        await hammer(family, family.name === 'POST /api/adv/campaigns/{campaign_id}/creatives' ? 120 : 18);
      await stillUp();
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'tRPC, the static paths and requests malformed below HTTP',
    async () => {
      await hammer(TRPC_FAMILY, 150);
      await hammer(STATIC_FAMILY, 100);
      await hammer(PROTOCOL_FAMILY, 200);
      await stillUp();
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'all of them at once, 16 requests in flight',
    async () => {
      // Drawn from every family with the run's seed; a failure here names the request, not a replay path.
      const families = [
        ...ENGINE_FAMILIES,
        POSTBACK_FAMILY,
        ...REST_FAMILIES,
        TRPC_FAMILY,
        STATIC_FAMILY,
        PROTOCOL_FAMILY,
      ];
      const chosen = families.filter((f) => !ONLY || f.name.includes(ONLY));
      const requests = fc.sample(fc.oneof(...chosen.map((f) => f.arb(ctx))), {
        numRuns: Math.round(400 * SCALE),
        seed: SEED,
      });
      const problems: string[] = [];
      for (let i = 0; i < requests.length; i += 16) {
        const found = await Promise.all(requests.slice(i, i + 16).map(tryOne));
        problems.push(...found.filter((p) => p !== undefined));
      }
      expect(problems).toEqual([]);
      await stillUp();
    },
    TEST_TIMEOUT_MS,
  );

  it('leaves Redis bounded and everything accepted before the run in place', async () => {
    await engine.engine.events.flush();
    await engine.engine.budget.flush();
    const after = { accepted: await acceptedState(probe), footprint: await footprint(probe) };
    expect(lostSince(before.accepted, after.accepted)).toEqual([]);
    // Nor counted twice: the run replayed the world's tickets and forged others, and none of that is spend.
    const worldPools = [...before.accepted.spent].filter(([k]) =>
      ctx.world.campaignIds.some((id) => k.startsWith(`bud:{c:${id}}:`)),
    );
    expect(worldPools.length).toBeGreaterThan(0);
    for (const [k, spent] of worldPools) expect(after.accepted.spent.get(k), k).toBe(spent);

    const fresh = [...after.footprint.keys].filter(([k]) => !before.footprint.keys.has(k));
    const persistent = fresh.filter(([, v]) => v.ttl === -1);
    const expiring = fresh.filter(([, v]) => v.ttl >= 0);
    const grown = [...after.footprint.keys]
      .filter(([k]) => !['events', '{cfg}:log'].includes(k))
      .map(([k, v]) => [k, v.bytes - (before.footprint.keys.get(k)?.bytes ?? 0)] as const)
      .filter(([, d]) => d > 256 * 1024);
    const memory = after.footprint.usedMemory - before.footprint.usedMemory;
    console.log(
      `hostile-input: Redis +${fresh.length} keys (${persistent.length} without expiry), used memory ${memory >= 0 ? '+' : ''}${(memory / 1024).toFixed(0)} KiB after ${tally.sent} requests, ${tally.acceptedWrites} accepted writes, ${tally.authAttempts} sign-in or sign-up attempts`,
    );
    // Keys that never expire come only from writes the API accepted (an entity, its index entries, a
    // ledger or job record: a handful each); none from the thousands of refused requests.
    expect(persistent.length, persistent.map(([k]) => k).join(' ')).toBeLessThanOrEqual(6 * tally.acceptedWrites + 10);
    // Expiring keys are throttles: per address a sign-in came from, and per email it named two (its
    // network's back-off and the account's window), per token, per account.
    expect(expiring.length, expiring.map(([k]) => k).join(' ')).toBeLessThanOrEqual(
      2 * tally.authAttempts + tally.acceptedWrites + 50,
    );
    // No key holds a request body: a new key stays small, an old one grows by at most 256 KiB (streams aside).
    expect(fresh.filter(([, v]) => v.bytes > 64 * 1024).map(([k]) => k)).toEqual([]);
    expect(grown).toEqual([]);
    // Memory: 4 MiB for the event stream's new batches, the throttles and the allocator, while the run
    // sends at least four times that in bodies: a server that kept a quarter of what it got would fail.
    expect(memory).toBeLessThan(4 * 2 ** 20);
    if (!ONLY) expect(tally.bodyBytes).toBeGreaterThan(16 * 2 ** 20);
    await stillUp();
  });

  it('keeps the pipelines moving: the engine still follows config changes, the ingester drains every event into the store', async () => {
    const zone = await call<{ subid: string }>(app, 'POST', '/api/pub/zones', {
      token: accounts.publisher.token,
      json: { site_id: ctx.own.siteId, name: 'after the run', format: 'native' },
    });
    expect(zone.status).toBe(201);
    await eventually(() => engine.engine.mirror.index?.zones.has(zone.body.subid) === true);
    await ingestAll(app, [engine.engine]);
    const db = app.svc.config.stats.database;
    const rows = await (
      await app.svc.clickhouse!.query({
        query: `SELECT type, count() AS n FROM ${db}.events GROUP BY type`,
        format: 'JSONEachRow',
      })
    ).json<{
      type: string;
      n: string | number;
    }>();
    const stored = new Map(rows.map((r) => [r.type, Number(r.n)]));
    for (const [type, n] of before.eventTypes) expect(stored.get(type) ?? 0, type).toBeGreaterThanOrEqual(n);
  }, 60_000);
});
