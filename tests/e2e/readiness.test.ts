import type { EngineEvent } from '@adnet/schemas/events';
import type { DependencyCheck, StatsFreshness } from '@adnet/schemas/readiness';
import { createServer } from 'node:net';
import type { Server, Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { account, startApp } from '@adnet/test-support/admin';
import type { TestApp } from '@adnet/test-support/admin';
import { eventually, startEngine } from '@adnet/test-support/engine';
import type { TestEngine } from '@adnet/test-support/engine';
import { startIngester } from '@adnet/test-support/ingest-all';
import { freePort, startRedis } from '@adnet/test-support/redis';
import type { TestRedis } from '@adnet/test-support/redis';

// Every /readyz of the product (the public one through the engine, the admin's own on its public and
// operators' ports, the engine's on its operators' port) against a real Redis that hangs (SIGSTOP), comes
// back and stops; the statistics' lag against a stream the ingester has not read; an admin upstream down or hung.
interface Ready {
  ok: boolean;
  redis?: string;
  checks: DependencyCheck[];
}

let redis: TestRedis;
let app: TestApp;
let engine: TestEngine;
let urls: Record<string, string>;
let redisStopped = false;
let appClosed = false;
let slowest = 0;
let lagEvent: EngineEvent;
const LAG_NOTICE_MS = 1_500;

async function ready(url: string): Promise<{ status: number; body: Ready }> {
  const started = performance.now();
  // A hung answer fails here rather than at the test's timeout.
  const r = await fetch(url, { signal: AbortSignal.timeout(3_000) });
  const body = (await r.json()) as Ready;
  slowest = Math.max(slowest, performance.now() - started);
  return { status: r.status, body };
}
const check = (body: Ready, name: string) => body.checks.find((c) => c.name === name);
/** Each probe's answer, by where it was asked. */
const everywhere = async () =>
  Object.fromEntries(await Promise.all(Object.entries(urls).map(async ([k, url]) => [k, await ready(url)] as const)));

beforeAll(async () => {
  redis = await startRedis();
  const metricsPort = await freePort();
  // No ingester part: the statistics fall behind the stream until the test starts one.
  app = await startApp(
    redis.url,
    { METRICS_PORT: String(metricsPort), STATS_LAG_NOTICE_MS: String(LAG_NOTICE_MS) },
    { clickhouse: true, parts: ['ops'] },
  );
  engine = await startEngine(redis.url, {}, { adminUpstream: app.base });
  const engineOps = await engine.engine.listenOps(0, '127.0.0.1');
  urls = {
    public: `${engine.base}/readyz`,
    admin: `${app.base}/readyz`,
    adminOps: `http://127.0.0.1:${metricsPort}/readyz`,
    engineOps: `http://127.0.0.1:${engineOps}/readyz`,
  };
}, 60_000);
afterAll(async () => {
  await engine?.stop();
  if (!appClosed) await app?.close();
  if (!redisStopped) await redis?.stop();
}, 60_000);

describe('readiness', () => {
  it('is ready everywhere, naming every dependency, the public one with the admin and the engine', async () => {
    const all = await everywhere();
    for (const r of Object.values(all)) expect(r).toMatchObject({ status: 200, body: { ok: true } });
    const names = (k: string) => all[k]?.body.checks.map((c) => `${c.name}:${c.state}`);
    expect(names('admin')).toEqual(['redis:ok', 'clickhouse:ok', 'ingester:ok']);
    expect(names('adminOps')).toEqual(names('admin'));
    expect(names('engineOps')).toEqual(['redis:ok', 'index:ok', 'config-mirror:ok', 'event-writer:ok', 'journal:ok']);
    expect(names('public')).toEqual([
      'redis:ok',
      'clickhouse:ok',
      'ingester:ok',
      'admin:ok',
      'engine.redis:ok',
      'engine.index:ok',
      'engine.config-mirror:ok',
      'engine.event-writer:ok',
      'engine.journal:ok',
    ]);
    // The admin's fields as before.
    expect(all.public?.body).toMatchObject({
      redis: 'ready',
      clickhouse: 'ok',
      events: { length: 0, lag: 0, pending: 0 },
    });
  });

  it('names the ingester behind once the oldest event not yet in ClickHouse is older than STATS_LAG_NOTICE_MS, and says so to signed-in users', async () => {
    const adv = await account(app, 'advertiser');
    const freshness = async () => {
      const r = await fetch(`${engine.base}/api/stats/freshness`, {
        headers: { authorization: `Bearer ${adv.token}` },
      });
      expect(r.status).toBe(200);
      return (await r.json()) as StatsFreshness;
    };
    expect(await freshness()).toMatchObject({ state: 'current', lag_seconds: 0, threshold_seconds: 2 });
    expect((await fetch(`${engine.base}/api/stats/freshness`)).status).toBe(401);
    lagEvent = {
      id: 'lag-1',
      type: 'impression',
      ts: Date.now(),
      engine: engine.engine.id,
      publisher_id: 0,
      site_id: 0,
      zone_id: 0,
      country: 'us',
      device: 'desktop',
      campaign_id: 1,
      creative_id: 1,
      advertiser_id: adv.id,
      bid_id: 'b-lag',
      charge_nano: 1_000_000,
    };
    engine.engine.events.push(lagEvent);
    await engine.engine.events.flush();
    const written = Date.now();
    await eventually(
      async () => check((await ready(urls.admin as string)).body, 'ingester')?.state === 'behind',
      10_000,
    );
    expect(Date.now() - written).toBeGreaterThanOrEqual(LAG_NOTICE_MS - 100);
    const behind = await ready(urls.public as string);
    // Behind is named without failing readiness: the API serves; only its statistics are late.
    expect(behind.status).toBe(200);
    expect(check(behind.body, 'ingester')?.detail).toMatch(
      /^the oldest event not yet in ClickHouse is \d+\.\d s old \(over 1\.5 s\); 1 entries undelivered, 0 pending$/,
    );
    const lagging = await freshness();
    expect(lagging).toMatchObject({ state: 'behind', threshold_seconds: 2 });
    expect(lagging.lag_seconds).toBeGreaterThanOrEqual(1);
    expect(Date.parse(lagging.measured_at ?? '')).toBeGreaterThan(written);

    // An ingester catches up: current again.
    const ingester = await startIngester(app);
    try {
      await eventually(async () => (await freshness()).state === 'current', 15_000);
      expect(check((await ready(urls.admin as string)).body, 'ingester')?.state).toBe('ok');
    } finally {
      await ingester.stop();
    }
  }, 40_000);

  it('answers within a second while Redis hangs (SIGSTOP), naming it hung everywhere; ready again after SIGCONT', async () => {
    slowest = 0;
    redis.freeze();
    try {
      // An event written while Redis hangs: the engine holds it and names its event writer behind.
      engine.engine.events.push({ ...lagEvent, id: 'hung-1' });
      void engine.engine.events.flush();
      await eventually(async () => {
        const all = await everywhere();
        return Object.values(all).every((r) => r.status === 503 && check(r.body, 'redis')?.state === 'hung');
      }, 15_000);
      await eventually(
        async () => check((await ready(urls.public as string)).body, 'engine.event-writer')?.state === 'behind',
        10_000,
      );
      const all = await everywhere();
      expect(check(all.engineOps?.body as Ready, 'event-writer')?.detail).toMatch(
        /^a write to the event stream unanswered for \d+\.\d s; 1 events in the write, 0 more held, 0 dropped$/,
      );
      expect(check(all.public?.body as Ready, 'engine.redis')?.state).toBe('hung');
      expect(all.admin?.body.redis).toBe('hung');
      expect(check(all.admin?.body as Ready, 'redis')?.detail).toMatch(/^PING unanswered for \d+\.\d s$/);
      expect(slowest).toBeLessThan(1_000);
    } finally {
      redis.thaw();
    }
    await eventually(async () => Object.values(await everywhere()).every((r) => r.status === 200), 15_000);
  }, 40_000);

  it('names an admin upstream that does not answer hung, one that is gone down, within a second', async () => {
    // A host that takes connections and never answers, as a stopped admin process would.
    const sockets: Socket[] = [];
    const silent: Server = createServer((s) => void sockets.push(s));
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    const other = await startEngine(
      redis.url,
      {},
      { adminUpstream: `http://127.0.0.1:${(silent.address() as { port: number }).port}` },
    );
    try {
      slowest = 0;
      const r = await ready(`${other.base}/readyz`);
      expect(r.status).toBe(503);
      expect(check(r.body, 'admin')).toMatchObject({ state: 'hung', detail: '/readyz unanswered after 700 ms' });
      expect(check(r.body, 'engine.redis')?.state).toBe('ok');
      expect(slowest).toBeLessThan(1_000);
    } finally {
      await other.stop();
      for (const s of sockets) s.destroy();
      silent.close();
    }
    await app.close();
    appClosed = true;
    const r = await ready(urls.public as string);
    expect(r.status).toBe(503);
    expect(check(r.body, 'admin')).toMatchObject({ state: 'down', detail: expect.stringContaining('ECONNREFUSED') });
    expect(check(r.body, 'engine.index')?.state).toBe('ok');
  }, 40_000);

  it('names Redis down when it stops, within a second', async () => {
    await redis.stop();
    redisStopped = true;
    slowest = 0;
    await eventually(
      async () => check((await ready(urls.engineOps as string)).body, 'redis')?.state === 'down',
      10_000,
    );
    const r = await ready(urls.public as string);
    expect(r.status).toBe(503);
    expect(check(r.body, 'engine.redis')).toMatchObject({
      state: 'down',
      detail: expect.stringMatching(/^connection /),
    });
    expect(slowest).toBeLessThan(1_000);
  }, 30_000);
});
