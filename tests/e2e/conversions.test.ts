import { createHmac } from 'node:crypto';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConversionStore } from '@adnet/admin/conversion-store';
import { PostbackWorker } from '@adnet/admin/postback-worker';
import { call, useTestApp } from '@adnet/test-support/admin';
import type { Account } from '@adnet/test-support/admin';
import { eventually, servingZone, startEngine, streamedEvents } from '@adnet/test-support/engine';
import type { TestEngine } from '@adnet/test-support/engine';
import { World } from '@adnet/test-support/world';

const fx = useTestApp({ POSTBACK_ALLOW_LOOPBACK: 'true' });
let engine: TestEngine;
let world: World;
let adv: Account;
let other: Account;
let secret = '';
let zone = '';
let tracker: Server;
let trackerBase = '';
/** Scripted answers of the advertiser's tracker, and what it received. */
const answers: number[] = [];
const hits: string[] = [];
/** How long the tracker takes to answer. */
let trackerDelayMs = 0;
const UA =
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_0) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Safari/605.1.15';

beforeAll(async () => {
  tracker = createServer((req, res) => {
    hits.push(req.url ?? '');
    setTimeout(() => res.writeHead(answers.shift() ?? 200).end('ok'), trackerDelayMs);
  });
  await new Promise<void>((r) => tracker.listen(0, '127.0.0.1', r));
  trackerBase = `http://127.0.0.1:${(tracker.address() as AddressInfo).port}`;
  world = await World.create(fx.app);
  adv = await world.advertiser(100_000);
  other = await world.advertiser(100_000);
  await world.campaign(adv, { format: 'native', vertical: 'dating', bid_usd: 2 });
  secret = String((await call(fx.app, 'GET', '/api/adv/profile', { token: adv.token })).body.postback_secret);
  const site = await world.site();
  const pub = site.publisher;
  zone = (
    await call<{ subid: string }>(fx.app, 'POST', '/api/pub/zones', {
      token: pub.token,
      json: { site_id: site.id, name: 'N', format: 'native' },
    })
  ).body.subid;
  engine = await startEngine(fx.redis.url);
  await servingZone(engine, zone, 1);
});
afterAll(async () => {
  await engine.stop();
  tracker.close();
});

/** A real click through the engine: /imp, the render beacon, then /c; returns the click id the landing page received. */
async function clickId(): Promise<string> {
  const served = (await (
    await fetch(`${engine.base}/imp?z=${zone}&fp=fingerprint-77`, { headers: { 'user-agent': UA, 'x-country': 'FR' } })
  ).json()) as {
    beacon_url: string;
    click_url: string;
  };
  expect((await fetch(served.beacon_url, { headers: { 'user-agent': UA } })).status).toBe(200);
  const res = await fetch(`${served.click_url}?ttc=2000&x=5&y=5&focus=1&fp=fingerprint-77`, {
    redirect: 'manual',
    headers: { 'user-agent': UA },
  });
  return /c=([0-9a-f-]{36})/.exec(res.headers.get('location') ?? '')?.[1] ?? '';
}

const sign = (
  key: string,
  f: { click_id: string; payout: string; status: string; txid: string },
  enc: 'hex' | 'base64' = 'hex',
) => createHmac('sha256', key).update(`${f.click_id}|${f.payout}|${f.status}|${f.txid}`).digest(enc);

async function postback(fields: Record<string, string>, headers: Record<string, string> = {}) {
  const res = await fetch(`${fx.app.base}/postback/in`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams(fields).toString(),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

describe('POST /postback/in', () => {
  it('accepts a signed conversion as form fields, as headers, or as a GET query', async () => {
    const f = { click_id: await clickId(), payout: '1500', status: 'approved', txid: 'T-form' };
    const r = await postback({ ...f, secret, sig: sign(secret, f) });
    expect(r).toEqual({
      status: 200,
      body: { ok: true, conversion_id: expect.any(Number), duplicate: false, status: 'approved' },
    });
    const g = { click_id: await clickId(), payout: '900', status: 'pending', txid: 'T-headers' };
    expect(
      (await postback(g, { 'x-service-secret': secret, 'x-service-signature': sign(secret, g, 'base64') })).status,
    ).toBe(200);
    const q = { click_id: await clickId(), payout: '100', status: 'pending', txid: 'T-get' };
    const get = await fetch(
      `${fx.app.base}/postback/in?${new URLSearchParams({ ...q, secret, sig: sign(secret, q) }).toString()}`,
    );
    expect(get.status).toBe(200);
  });

  it('401 for a missing or wrong signature or an unknown secret; 400 naming bad fields', async () => {
    const f = { click_id: await clickId(), payout: '10', status: 'approved', txid: 'T-401' };
    expect((await postback({ ...f, secret })).status).toBe(401);
    expect((await postback({ ...f, secret, sig: sign('not-the-secret', f) })).status).toBe(401);
    expect((await postback({ ...f, secret, sig: sign(secret, { ...f, payout: '11' }) })).status).toBe(401);
    expect((await postback({ ...f, secret: 'nope', sig: sign('nope', f) })).status).toBe(401);
    const bad = await postback({ click_id: 'x', payout: '1.5', status: 'paid', txid: '', secret, sig: 'x' });
    expect(Object.keys(bad.body.errors as object).sort()).toEqual(['click_id', 'payout', 'status', 'txid']);
    expect((await postback({ ...f, secret, sig: sign(secret, f), padding: 'x'.repeat(20_000) })).status).toBe(413);
  });

  it("404 for an unknown click, 403 for another advertiser's click however well signed", async () => {
    const unknown = {
      click_id: '00000000-0000-4000-8000-000000000000',
      payout: '10',
      status: 'approved',
      txid: 'T-404',
    };
    expect((await postback({ ...unknown, secret, sig: sign(secret, unknown) })).status).toBe(404);
    const otherSecret = String(
      (await call(fx.app, 'GET', '/api/adv/profile', { token: other.token })).body.postback_secret,
    );
    const f = { click_id: await clickId(), payout: '10', status: 'approved', txid: 'T-403' };
    expect((await postback({ ...f, secret: otherSecret, sig: sign(otherSecret, f) })).status).toBe(403);
  });

  it('deduplicates by txid and allows only pending -> approved | rejected', async () => {
    const click = await clickId();
    const pending = { click_id: click, payout: '500', status: 'pending', txid: 'T-moves' };
    const first = await postback({ ...pending, secret, sig: sign(secret, pending) });
    expect((await postback({ ...pending, secret, sig: sign(secret, pending) })).body).toMatchObject({
      duplicate: true,
      conversion_id: first.body.conversion_id,
    });
    const approved = { ...pending, status: 'approved' };
    expect((await postback({ ...approved, secret, sig: sign(secret, approved) })).body).toMatchObject({
      duplicate: false,
      status: 'approved',
      conversion_id: first.body.conversion_id,
    });
    const rejected = { ...pending, status: 'rejected' };
    expect((await postback({ ...rejected, secret, sig: sign(secret, rejected) })).status).toBe(409);
    const list = await call<{ conversions: { txid: string; status: string }[] }>(
      fx.app,
      'GET',
      '/api/adv/conversions',
      { token: adv.token },
    );
    expect(list.body.conversions.find((c) => c.txid === 'T-moves')?.status).toBe('approved');
  });
});

describe('outgoing postback', () => {
  it('calls the tracker with the macros filled, retries on the 5 s / 30 s / 5 min / 30 min / 2 h schedule, and marks postback_failed', async () => {
    await call(fx.app, 'PATCH', '/api/adv/profile', {
      token: adv.token,
      json: {
        postback_url: `${trackerBase}/pb?cid={click_id}&p={payout_cents}&s={status}&g={geo}&d={device}&o={os}&b={browser}&v={vertical}&c={campaign_id}&f={format}`,
      },
    });
    const store = new ConversionStore(fx.app.svc.redis);
    await fx.app.svc.redis.del('pb:queue');
    let clock = Date.now();
    const worker = () => new PostbackWorker({ svc: fx.app.svc, store, now: () => clock });
    const a = worker();

    // Succeeds on the third attempt.
    const click = await clickId();
    const f = { click_id: click, payout: '1234', status: 'approved', txid: 'T-out' };
    answers.push(500, 503);
    hits.length = 0;
    await postback({ ...f, secret, sig: sign(secret, f) });
    await a.runOnce();
    expect(hits).toEqual([]); // not due before 5 s
    clock += 5_600;
    await a.runOnce();
    clock += 34_000;
    // A second admin instance (a restart) picks the job up from Redis; the lease keeps them from both calling.
    await Promise.all([a.runOnce(), worker().runOnce()]);
    expect(hits).toHaveLength(2);
    clock += 340_000;
    await worker().runOnce();
    expect(hits).toHaveLength(3);
    expect(hits[2]).toBe(
      `/pb?cid=${click}&p=1234&s=approved&g=fr&d=desktop&o=macos&b=safari&v=dating&c=${engine.engine.mirror.index?.campaigns.keys().next().value as number}&f=native`,
    );
    const done = (
      await call<{ conversions: { txid: string; postback_failed: boolean; attempts: { status: number | null }[] }[] }>(
        fx.app,
        'GET',
        '/api/adv/conversions',
        {
          token: adv.token,
        },
      )
    ).body.conversions.find((c) => c.txid === 'T-out');
    expect(done?.attempts.map((x) => x.status)).toEqual([500, 503, 200]);
    expect(done?.postback_failed).toBe(false);

    // Fails five times: marked postback_failed, nothing after the fifth.
    const g = { click_id: await clickId(), payout: '1', status: 'approved', txid: 'T-fail' };
    answers.push(500, 500, 500, 500, 500, 500);
    await postback({ ...g, secret, sig: sign(secret, g) });
    for (const step of [5_600, 33_100, 330_100, 1_980_100, 7_920_100, 7_920_100]) {
      clock += step;
      await worker().runOnce();
    }
    const failed = (
      await call<{ conversions: { txid: string; postback_failed: boolean; attempts: unknown[] }[] }>(
        fx.app,
        'GET',
        '/api/adv/conversions',
        {
          token: adv.token,
        },
      )
    ).body.conversions.find((c) => c.txid === 'T-fail');
    expect(failed?.attempts).toHaveLength(5);
    expect(failed?.postback_failed).toBe(true);
    expect(await store.depth()).toBe(0);
  });

  it('puts each conversion into the event stream once, when it is approved (failed postbacks still count)', async () => {
    const conversions = (await streamedEvents(fx.app.svc.redis)).filter((e) => e.type === 'conversion');
    // T-form, T-moves (once, at approval), T-out and T-fail; pending ones are not counted.
    expect(conversions).toHaveLength(4);
    expect(conversions.every((e) => e.advertiser_id === adv.id && e.country === 'fr')).toBe(true);
  });

  it('a stopping worker finishes the attempts in progress and hands the rest of its batch back, due at once', async () => {
    const store = new ConversionStore(fx.app.svc.redis);
    const clicks: string[] = [];
    for (let i = 0; i < 4; i++) {
      const f = { click_id: await clickId(), payout: '10', status: 'approved', txid: `T-stop-${i}` };
      clicks.push(f.click_id);
      await postback({ ...f, secret, sig: sign(secret, f) });
    }
    const clock = Date.now() + 10_000;
    hits.length = 0;
    answers.length = 0;
    trackerDelayMs = 300;
    // One at a time to the tracker's host, so exactly one is in progress when the stop comes.
    const stopping = new PostbackWorker({ svc: fx.app.svc, store, now: () => clock, hostConcurrency: 1 });
    const pass = stopping.runOnce();
    await eventually(() => hits.length === 1);
    await stopping.stop();
    await pass;
    trackerDelayMs = 0;
    expect(hits).toHaveLength(1);
    // The other three are queued again, due now, not held by a lease for a minute.
    const queued = await fx.app.svc.redis.zrange('pb:queue', 0, -1, 'WITHSCORES');
    expect(queued.length / 2, JSON.stringify(queued)).toBe(3);
    expect(queued.filter((_, i) => i % 2 === 1).every((score) => Number(score) <= clock)).toBe(true);
    await new PostbackWorker({ svc: fx.app.svc, store, now: () => clock }).runOnce();
    // Each conversion's tracker called exactly once in all.
    expect(hits.map((h) => /cid=([0-9a-f-]+)/.exec(h)?.[1]).sort()).toEqual([...clicks].sort());
    expect(await store.depth()).toBe(0);
  });
});

describe('conversion status moves under concurrency', () => {
  const conversionEvents = async () =>
    (await streamedEvents(fx.app.svc.redis)).filter((e) => e.type === 'conversion').length;

  it('100 concurrent postbacks approving one pending conversion count it once', async () => {
    const pending = { click_id: await clickId(), payout: '700', status: 'pending', txid: 'T-race' };
    const first = await postback({ ...pending, secret, sig: sign(secret, pending) });
    const before = await conversionEvents();
    const approved = { ...pending, status: 'approved' };
    const answers100 = await Promise.all(
      Array.from({ length: 100 }, () => postback({ ...approved, secret, sig: sign(secret, approved) })),
    );
    expect(
      answers100.every(
        (r) => r.status === 200 && r.body.status === 'approved' && r.body.conversion_id === first.body.conversion_id,
      ),
    ).toBe(true);
    expect(answers100.filter((r) => r.body.duplicate === false)).toHaveLength(1);
    expect(await conversionEvents()).toBe(before + 1);
    // A rejection racing the approvals cannot undo them.
    const rejected = { ...pending, status: 'rejected' };
    expect((await postback({ ...rejected, secret, sig: sign(secret, rejected) })).status).toBe(409);
  });

  it('the retry worker racing an approval leaves it approved, with its attempt recorded', async () => {
    const store = new ConversionStore(fx.app.svc.redis);
    const pending = { click_id: await clickId(), payout: '300', status: 'pending', txid: 'T-worker-race' };
    await postback({ ...pending, secret, sig: sign(secret, pending) });
    hits.length = 0;
    answers.length = 0;
    trackerDelayMs = 300;
    // The worker reads the pending record, then waits on the tracker while the approval lands.
    const pass = new PostbackWorker({ svc: fx.app.svc, store, now: () => Date.now() + 10_000 }).runOnce();
    await eventually(() => hits.some((h) => h.includes(pending.click_id)));
    const approved = { ...pending, status: 'approved' };
    expect((await postback({ ...approved, secret, sig: sign(secret, approved) })).body).toMatchObject({
      status: 'approved',
      duplicate: false,
    });
    await pass;
    trackerDelayMs = 0;
    const list = await call<{ conversions: { txid: string; status: string; attempts: unknown[] }[] }>(
      fx.app,
      'GET',
      '/api/adv/conversions',
      {
        token: adv.token,
      },
    );
    const c = list.body.conversions.find((x) => x.txid === 'T-worker-race');
    expect(c?.status).toBe('approved');
    expect(c?.attempts.length).toBeGreaterThanOrEqual(1);
  });
});
