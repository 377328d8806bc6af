import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { account, call, useTestApp } from '@adnet/test-support/admin';
import type { Account } from '@adnet/test-support/admin';
import { eventually } from '@adnet/test-support/engine';
import { ConversionStore, POSTBACK_QUEUE } from '../src/postback/conversion-store.ts';
import type { Attempt, Conversion } from '../src/postback/conversion-store.ts';
import { PostbackWorker } from '../src/postback/postback-worker.ts';

const TIMEOUT_MS = 1_500;
const fx = useTestApp({
  POSTBACK_ALLOW_LOOPBACK: 'true',
  POSTBACK_TIMEOUT_MS: String(TIMEOUT_MS),
  POSTBACK_CONCURRENCY: '8',
  POSTBACK_HOST_CONCURRENCY: '2',
});

/** A local tracker: what reached it, in order, and how many requests it holds open at most. */
interface Tracker {
  server: Server;
  port: number;
  hits: string[];
  open: number;
  maxOpen: number;
}
/** Everything every tracker received, in arrival order, as `<tracker>:<path>`. */
const arrivals: string[] = [];

async function tracker(name: string, answer: (req: IncomingMessage, res: ServerResponse) => void): Promise<Tracker> {
  const t: Tracker = { server: createServer(), port: 0, hits: [], open: 0, maxOpen: 0 };
  t.server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    t.hits.push(req.url ?? '');
    arrivals.push(`${name}:${req.url ?? ''}`);
    t.maxOpen = Math.max(t.maxOpen, ++t.open);
    res.on('close', () => t.open--);
    answer(req, res);
  });
  await new Promise<void>((r) => t.server.listen(0, '127.0.0.1', r));
  t.port = (t.server.address() as AddressInfo).port;
  return t;
}

let slow: Tracker;
let fast: Tracker;
let odd: Tracker;
let store: ConversionStore;
let clock = Date.now();

beforeAll(async () => {
  // Never answers: every call to it runs into the time limit.
  slow = await tracker('slow', () => undefined);
  fast = await tracker('fast', (_req, res) => res.end('ok'));
  odd = await tracker('odd', (req, res) => {
    const path = req.url ?? '';
    if (path.includes('bad-redirect')) return void res.writeHead(302, { location: 'http://[bad' }).end();
    if (path.includes('private-redirect')) return void res.writeHead(302, { location: 'http://10.0.0.1/pb' }).end();
    if (path.includes('ftp-redirect')) return void res.writeHead(302, { location: 'ftp://files.example.com/' }).end();
    res.writeHead(503).end();
  });
  store = new ConversionStore(fx.app.svc.redis);
});
afterAll(() => {
  for (const t of [slow, fast, odd]) {
    t.server.closeAllConnections();
    t.server.close();
  }
});

/** An advertiser whose tracker URL pattern is stored as given (the profile's validation is not the subject here). */
async function advertiser(pattern: string): Promise<Account> {
  const a = await account(fx.app, 'advertiser');
  await fx.app.svc.users.setPostbackUrl(a.id, pattern);
  return a;
}

/** A conversion of `adv` whose first attempt is due at `dueAt`. */
async function conversion(adv: Account, clickId: string, dueAt: number, country = 'fr'): Promise<number> {
  const id = await store.nextId();
  const now = new Date().toISOString();
  const c: Conversion = {
    id,
    advertiser_id: adv.id,
    click_id: clickId,
    txid: `tx-${id}`,
    payout_cents: 100,
    status: 'approved',
    postback_failed: false,
    campaign_id: 1,
    creative_id: 1,
    zone_id: 1,
    site_id: 1,
    country,
    device: 'desktop',
    os: 'linux',
    browser: 'firefox',
    vertical: 'dating',
    created_at: now,
    updated_at: now,
    attempts: [],
  };
  await store.create(c);
  await store.schedule({ advertiser: adv.id, conversion: id, status: 'approved', attempt: 1 }, dueAt);
  return id;
}

const attemptsOf = async (adv: Account, id: number): Promise<Attempt[]> =>
  (await store.get(adv.id, id))?.attempts ?? [];
const worker = () => new PostbackWorker({ svc: fx.app.svc, store, now: () => clock });

describe('one advertiser cannot hold up another', () => {
  it('a hanging tracker and bad patterns of others fail only their own attempts, each with its reason', async () => {
    await fx.app.svc.redis.del(POSTBACK_QUEUE);
    const t0 = clock;
    const a = await advertiser(`http://slow.localhost:${slow.port}/pb?cid={click_id}`);
    const badPattern = await advertiser('ht tp://tracker {click_id}');
    const emptyHost = await advertiser('https://{geo}?cid={click_id}');
    const noSuchHost = await advertiser('http://{geo}.invalid/pb?cid={click_id}');
    const redirects = await advertiser(`http://odd.localhost:${odd.port}/{click_id}`);
    const b = await advertiser(`http://fast.localhost:${fast.port}/pb?cid={click_id}`);

    // A's six are due first, so they head the batch; B's come last.
    const slowIds = [];
    for (let i = 0; i < 6; i++) slowIds.push(await conversion(a, `a-${i}`, t0 - 10_000 + i));
    const bad = await conversion(badPattern, 'bp', t0 - 5_000);
    const empty = await conversion(emptyHost, 'eh', t0 - 5_000, '');
    const dns = await conversion(noSuchHost, 'dn', t0 - 5_000);
    const badRedirect = await conversion(redirects, 'bad-redirect', t0 - 5_000);
    const privateRedirect = await conversion(redirects, 'private-redirect', t0 - 5_000);
    const ftpRedirect = await conversion(redirects, 'ftp-redirect', t0 - 5_000);
    const status = await conversion(redirects, 'status', t0 - 5_000);
    const fastIds = [
      await conversion(b, 'b-0', t0 - 1_000),
      await conversion(b, 'b-1', t0 - 1_000),
      await conversion(b, 'b-2', t0 - 1_000),
    ];

    const logged = vi.spyOn(fx.app.svc.log, 'info');
    const pass = worker().runOnce();
    // B's trackers are called and recorded while A's calls still hang: B did not wait for them.
    await eventually(async () =>
      (await Promise.all(fastIds.map((id) => attemptsOf(b, id)))).every((x) => x.length === 1),
    );
    expect(slow.open).toBe(2);
    for (const id of slowIds) expect(await attemptsOf(a, id)).toEqual([]);
    expect(arrivals.filter((x) => x.startsWith('fast:'))).toHaveLength(3);
    for (const id of fastIds)
      expect(await attemptsOf(b, id)).toEqual([
        expect.objectContaining({ attempt: 1, status: 200, reason: null, error: null }),
      ]);

    await pass;
    // A: at most two at a time to its host; once they timed out, no more in this pass; the rest wait, due, uncounted.
    expect(slow.maxOpen).toBe(2);
    expect(slow.hits).toHaveLength(2);
    const slowAttempts = await Promise.all(slowIds.map((id) => attemptsOf(a, id)));
    expect(slowAttempts.filter((x) => x.length === 1).map((x) => x[0])).toEqual([
      expect.objectContaining({ status: null, reason: 'timeout', error: 'no answer within the time limit' }),
      expect.objectContaining({ status: null, reason: 'timeout', error: 'no answer within the time limit' }),
    ]);
    expect(slowAttempts.filter((x) => x.length === 0)).toHaveLength(4);
    const queued = await fx.app.svc.redis.zrangebyscore(POSTBACK_QUEUE, '-inf', clock);
    expect(queued.filter((m) => m.startsWith(`${a.id}:`) && m.endsWith(':1'))).toHaveLength(4);

    const reasonOf = async (adv: Account, id: number) => (await attemptsOf(adv, id)).map((x) => x.reason);
    expect(await reasonOf(badPattern, bad)).toEqual(['bad_pattern']);
    expect(await reasonOf(emptyHost, empty)).toEqual(['invalid_url']);
    expect(await reasonOf(noSuchHost, dns)).toEqual(['host_not_public']);
    expect(await reasonOf(redirects, badRedirect)).toEqual(['bad_redirect']);
    expect(await reasonOf(redirects, privateRedirect)).toEqual(['host_not_public']);
    expect(await reasonOf(redirects, ftpRedirect)).toEqual(['bad_redirect']);
    expect(await attemptsOf(redirects, status)).toEqual([
      expect.objectContaining({ status: 503, reason: 'http_status' }),
    ]);

    // The advertiser sees the reasons through the API, and never an address or a port.
    const listed = await call<{ conversions: { id: number; attempts: Attempt[] }[] }>(
      fx.app,
      'GET',
      '/api/adv/conversions',
      { token: redirects.token },
    );
    expect(listed.status).toBe(200);
    const shown = JSON.stringify(listed.body);
    expect(listed.body.conversions.find((c) => c.id === privateRedirect)?.attempts[0]).toMatchObject({
      reason: 'host_not_public',
      error: 'the host name does not resolve to a public internet address',
    });
    // A name that does not resolve reads the same: which internal names exist is not told.
    const unresolved = await call<{ conversions: { id: number; attempts: Attempt[] }[] }>(
      fx.app,
      'GET',
      '/api/adv/conversions',
      { token: noSuchHost.token },
    );
    expect(unresolved.body.conversions.find((c) => c.id === dns)?.attempts[0]).toMatchObject({
      reason: 'host_not_public',
      error: 'the host name does not resolve to a public internet address',
    });
    // The operator's log tells them apart, under the conversion's id.
    const attemptLog = (id: number) =>
      logged.mock.calls
        .map(([o]) => o as Record<string, unknown>)
        .find((o) => o.event === 'postback.attempt' && o.conversionId === id);
    expect(attemptLog(dns)).toMatchObject({ reason: 'host_not_public', detail: expect.stringMatching(/^dns: /) });
    expect(attemptLog(privateRedirect)).toMatchObject({
      reason: 'host_not_public',
      detail: expect.stringMatching(/^refused_address: .*10\.0\.0\.1/),
    });
    logged.mockRestore();
    for (const leak of ['10.0.0.1', '127.0.0.1', String(odd.port)]) expect(shown).not.toContain(leak);
  });

  it("a backlog of one advertiser does not keep another's due job out of the next batch", async () => {
    await fx.app.svc.redis.del(POSTBACK_QUEUE);
    const t0 = clock;
    const a = await advertiser(`http://fast.localhost:${fast.port}/pb?cid={click_id}`);
    const b = await advertiser(`http://fast.localhost:${fast.port}/pb?cid={click_id}`);
    for (let i = 0; i < 30; i++)
      await store.schedule(
        { advertiser: a.id, conversion: 1_000_000 + i, status: 'approved', attempt: 1 },
        t0 - 60_000 + i,
      );
    await store.schedule({ advertiser: b.id, conversion: 2_000_000, status: 'approved', attempt: 1 }, t0 - 1_000);
    const batch = await store.lease(t0, 60_000, 8, { perAdvertiser: 4, scan: 100 });
    expect(batch).toHaveLength(5);
    expect(batch.filter((m) => m.startsWith(`${a.id}:`))).toHaveLength(4);
    expect(batch).toContain(`${b.id}:2000000:approved:1`);
    // A's jobs past its share are still due, now behind everything that was due before.
    const due = await fx.app.svc.redis.zrangebyscore(POSTBACK_QUEUE, '-inf', t0, 'WITHSCORES');
    expect(due.length / 2).toBe(26);
    expect(due.filter((_, i) => i % 2 === 1).every((score) => Number(score) === t0)).toBe(true);
    await fx.app.svc.redis.del(POSTBACK_QUEUE);
  });
});

describe('the retry schedule with failures of every kind', () => {
  it('reaches postback_failed after the fifth failed attempt, each one recorded with its reason', async () => {
    await fx.app.svc.redis.del(POSTBACK_QUEUE);
    const badPattern = await advertiser('ht tp://tracker {click_id}');
    const redirects = await advertiser(`http://odd.localhost:${odd.port}/{click_id}`);
    const bp = await conversion(badPattern, 'bp', clock);
    const rd = await conversion(redirects, 'private-redirect', clock);
    const st = await conversion(redirects, 'status', clock);
    for (const step of [5_600, 33_100, 330_100, 1_980_100, 7_920_100, 7_920_100]) {
      clock += step;
      await worker().runOnce();
    }
    for (const [adv, id, reason] of [
      [badPattern, bp, 'bad_pattern'],
      [redirects, rd, 'host_not_public'],
      [redirects, st, 'http_status'],
    ] as const) {
      const c = await store.get(adv.id, id);
      expect(c?.attempts.map((x) => [x.attempt, x.reason])).toEqual([1, 2, 3, 4, 5].map((n) => [n, reason]));
      expect(c?.postback_failed).toBe(true);
      // The status is untouched: only attempts were written.
      expect(c?.status).toBe('approved');
    }
    expect(await store.depth()).toBe(0);
    // Each advertiser is emailed once about the campaign, however many of its conversions failed that day.
    const queued = (await fx.app.svc.mailQueue.lease(clock + 86_400_000, 60_000, 1_000)).map(
      (j) => JSON.parse(j.raw) as { kind: string; user_id: number },
    );
    const failing = queued.filter((n) => n.kind === 'postback_failing');
    expect(failing.map((n) => n.user_id).sort((a, b) => a - b)).toEqual(
      [badPattern.id, redirects.id].sort((a, b) => a - b),
    );
  });
});

describe('the test postback', () => {
  it('answers the reason of a failure in words that name no address or port', async () => {
    const cases = [
      ['ht tp://tracker {click_id}', 'bad_pattern', null],
      [`http://odd.localhost:${odd.port}/private-redirect`, 'host_not_public', null],
      [`http://odd.localhost:${odd.port}/status`, 'http_status', 503],
      [`http://fast.localhost:${fast.port}/pb?cid={click_id}`, null, 200],
    ] as const;
    for (const [pattern, reason, status] of cases) {
      const adv = await advertiser(pattern);
      const r = await call<Record<string, unknown>>(fx.app, 'POST', '/api/adv/profile/postback-test', {
        token: adv.token,
      });
      expect([pattern, r.status, r.body]).toEqual([
        pattern,
        200,
        expect.objectContaining({ ok: reason === null, reason, status }),
      ]);
      for (const leak of ['10.0.0.1', String(odd.port), 'detail'])
        expect(JSON.stringify(r.body.error)).not.toContain(leak);
      expect(r.body).not.toHaveProperty('detail');
    }
  });
});
