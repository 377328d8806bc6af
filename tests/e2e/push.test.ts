import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, useTestApp } from '@adnet/test-support/admin';
import { PUSH_LIMITS, definePushScripts, saveSubscription, zoneSubscribersKey } from '@adnet/engine/push-store';
import { Redis } from 'ioredis';
import { eventually, startEngine, streamedEvents } from '@adnet/test-support/engine';
import type { TestEngine } from '@adnet/test-support/engine';
import { World } from '@adnet/test-support/world';
import { PushServiceStub } from '@adnet/test-support/push-service';
import { decodeTicket } from '@adnet/engine/signed-token';
import type { BidTicket } from '@adnet/engine/signed-token';

const fx = useTestApp();
let engine: TestEngine;
let stub: PushServiceStub;
let cpcCampaign = 0;
const zones: Record<string, string> = {};

const subscription = (path: string) => stub.subscription(path);
const decryptPush = (path: string, body: Buffer) => JSON.parse(stub.decrypt(path, body)) as { url: string };
const subscribe = (body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${engine.base}/push/subscribe`, {
    method: 'POST',
    headers: { 'content-type': 'text/plain', ...headers },
    body: JSON.stringify(body),
  }).then(async (r) => ({
    status: r.status,
    body: (await r.json()) as Record<string, unknown>,
  }));

let ca = '';
let world: World;

beforeAll(async () => {
  stub = await PushServiceStub.start();
  ca = stub.caFile;
  world = await World.create(fx.app);
  // CPC $0.20 at the 2% push prior ranks as a $4 CPM: it wins every notification.
  cpcCampaign = (
    await world.campaign(await world.advertiser(100_000), { format: 'push', bid_type: 'cpc', bid_usd: 0.2 })
  ).campaign.id;
  const site = await world.site();
  const pub = site.publisher;
  for (const [name, format] of [
    ['push', 'push'],
    ['native', 'native'],
  ] as const) {
    zones[name] = (
      await call<{ subid: string }>(fx.app, 'POST', '/api/pub/zones', {
        token: pub.token,
        json: { site_id: site.id, name, format },
      })
    ).body.subid;
  }
  engine = await startEngine(fx.redis.url, {
    PUSH_SERVICE_HOSTS: '127.0.0.1',
    PUSH_CA_FILE: ca,
    PUSH_SEND_INTERVAL_MS: '3600000',
  });
  await eventually(
    () =>
      engine.engine.mirror.index?.zones.get(zones.push ?? '')?.serving === true &&
      engine.engine.mirror.index.candidateCount === 1,
  );
  await new Promise((r) => setTimeout(r, 300));
});
afterAll(async () => {
  await engine?.stop();
  stub?.close();
});

describe('web push', () => {
  it('publishes its VAPID public key', async () => {
    const r = (await (await fetch(`${engine.base}/push/vapid-public-key`)).json()) as { public_key: string };
    expect(Buffer.from(r.public_key, 'base64url')).toHaveLength(65);
  });

  it('validates subscriptions and accepts only push-service endpoints on push zones', async () => {
    expect(
      (await subscribe({ zone: zones.push, subscription: { ...subscription('/x'), endpoint: 'http://127.0.0.1/x' } }))
        .body.errors,
    ).toHaveProperty(['subscription.endpoint']);
    expect(
      (
        await subscribe({
          zone: zones.push,
          subscription: { ...subscription('/x'), endpoint: 'https://169.254.169.254/latest' },
        })
      ).status,
    ).toBe(400);
    expect(
      (
        await subscribe({
          zone: zones.push,
          subscription: { ...subscription('/x'), keys: { p256dh: 'abc', auth: 'def' } },
        })
      ).body.errors,
    ).toEqual({
      'subscription.keys.p256dh': expect.stringContaining('P-256'),
      'subscription.keys.auth': expect.stringContaining('auth secret'),
    });
    expect((await subscribe({ zone: 'nope', subscription: subscription('/x') })).status).toBe(404);
    expect((await subscribe({ zone: zones.native, subscription: subscription('/x') })).status).toBe(404);
    const bad = await fetch(`${engine.base}/push/subscribe`, { method: 'POST', body: '{oops' });
    expect(bad.status).toBe(400);
    expect((await subscribe({ zone: zones.push, subscription: subscription('/ok') })).status).toBe(201);
  });

  it('sends one encrypted notification per subscriber per interval and drops gone subscriptions', async () => {
    expect((await subscribe({ zone: zones.push, subscription: subscription('/gone') })).status).toBe(201);
    stub.received.length = 0;
    await engine.engine.pushSender.runOnce();
    expect(stub.received.map((r) => r.path).sort()).toEqual(['/gone', '/ok']);
    for (const r of stub.received) {
      expect(r.headers['content-encoding']).toBe('aes128gcm');
      expect(String(r.headers.authorization)).toMatch(/^vapid t=.+, k=.+$/);
    }
    expect(engine.engine.pushSender.dropped).toBe(1);
    expect(Object.keys(await fx.app.svc.redis.hgetall(zoneSubscribersKey(zones.push ?? '')))).toHaveLength(1);
    // The frequency cap holds: a second pass sends nothing.
    stub.received.length = 0;
    await engine.engine.pushSender.runOnce();
    expect(stub.received).toEqual([]);
  });

  it('the frequency cap holds across engines: three senders at once notify each subscriber once', async () => {
    const more = await Promise.all(
      [0, 1].map(() =>
        startEngine(fx.redis.url, {
          PUSH_SERVICE_HOSTS: '127.0.0.1',
          PUSH_CA_FILE: ca,
          PUSH_SEND_INTERVAL_MS: '3600000',
        }),
      ),
    );
    try {
      await Promise.all(
        more.map((e) => eventually(() => e.engine.mirror.index?.zones.get(zones.push ?? '')?.serving === true)),
      );
      for (const path of ['/fresh-1', '/fresh-2', '/fresh-3'])
        expect((await subscribe({ zone: zones.push, subscription: subscription(path) })).status).toBe(201);
      stub.received.length = 0;
      await Promise.all([engine, ...more].map((e) => e.engine.pushSender.runOnce()));
      // The earlier subscriber is still inside its interval; each new one gets exactly one notification.
      expect(stub.received.map((r) => r.path).sort()).toEqual(['/fresh-1', '/fresh-2', '/fresh-3']);
    } finally {
      await Promise.all(more.map((e) => e.stop()));
    }
  });
});

describe('a push notification clicked', () => {
  it('is a valid click, billed to the CPC campaign, when a person opens it after it arrived', async () => {
    expect((await subscribe({ zone: zones.push, subscription: subscription('/clicker') })).status).toBe(201);
    stub.received.length = 0;
    await engine.engine.pushSender.runOnce();
    const sent = stub.received.find((r) => r.path === '/clicker');
    expect(sent).toBeDefined();
    const { url } = decryptPush('/clicker', sent?.body ?? Buffer.alloc(0));
    expect(url).toContain('/c/');
    await new Promise((r) => setTimeout(r, 1_100));
    const ua = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/125.0 Safari/537.36';
    expect((await fetch(url, { headers: { 'user-agent': ua }, redirect: 'manual' })).status).toBe(302);
    const clicks = (await streamedEvents(fx.app.svc.redis, engine)).filter(
      (e) => e.type === 'click' && e.campaign_id === cpcCampaign,
    );
    expect(clicks.map((e) => [e.invalid, e.reason ?? null, e.charge_nano])).toEqual([[false, null, 200_000_000]]);
  });
});

describe('stored subscriptions lapse', () => {
  it('a subscription not renewed in time is dropped, not sent to', async () => {
    const path = '/lapsed';
    const lapsed = subscription(path);
    const redis = new Redis(fx.redis.url);
    definePushScripts(redis);
    await saveSubscription(redis, zones.push ?? '', lapsed, { now: Date.now() - PUSH_LIMITS.ttlMs - 1 });
    await redis.quit();
    stub.received.length = 0;
    await engine.engine.pushSender.runOnce();
    expect(stub.received.map((r) => r.path)).not.toContain(path);
    expect(
      Object.values(await fx.app.svc.redis.hgetall(zoneSubscribersKey(zones.push ?? ''))).some((raw) =>
        raw.includes(path),
      ),
    ).toBe(false);
  });
});

describe("a subscriber's country, device, OS and browser", () => {
  it('are taken when it subscribes and target the notifications it gets later', async () => {
    const adv = await world.advertiser(100_000);
    // Outbids the untargeted CPC campaign ($4 eCPM), but only for Dutch Android phones.
    const targeted = {
      format: 'push',
      geo_include: ['nl'],
      device_types: ['mobile'],
      os_include: ['android'],
      bid_usd: 8,
    };
    const dutch = (await world.campaign(adv, targeted)).campaign.id;
    await eventually(() => engine.engine.mirror.index?.candidateCount === 2);
    const PIXEL =
      'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/125.0 Mobile Safari/537.36';
    // Behind the trusted proxy (loopback), from a Dutch address: an Android phone, and a client that is none.
    expect(
      (
        await subscribe(
          { zone: zones.push, subscription: subscription('/dutch-phone') },
          { 'user-agent': PIXEL, 'x-forwarded-for': '193.0.0.1' },
        )
      ).status,
    ).toBe(201);
    expect(
      (
        await subscribe(
          { zone: zones.push, subscription: subscription('/dutch-desktop') },
          { 'x-forwarded-for': '193.0.0.1' },
        )
      ).status,
    ).toBe(201);
    await new Promise((r) => setTimeout(r, 300)); // the new campaign's budget slice
    stub.received.length = 0;
    await engine.engine.pushSender.runOnce();
    const ticketOf = (path: string) => {
      const { url } = decryptPush(path, stub.received.find((r) => r.path === path)?.body ?? Buffer.alloc(0));
      return decodeTicket('t'.repeat(40), url.split('/c/')[1]?.split('/')[0] ?? '') as BidTicket;
    };
    const phone = ticketOf('/dutch-phone');
    expect([phone.campaignId, phone.country, phone.device, phone.os, phone.browser]).toEqual([
      dutch,
      'nl',
      'mobile',
      'android',
      'chrome',
    ]);
    expect(ticketOf('/dutch-desktop').campaignId).toBe(cpcCampaign);
  });
});

describe('POST /push/unsubscribe', () => {
  const unsubscribe = (body: unknown) =>
    fetch(`${engine.base}/push/unsubscribe`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain' },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    }).then(async (r) => ({ status: r.status, body: (await r.json()) as Record<string, unknown> }));
  const subscribed = async (path: string) =>
    Object.values(await fx.app.svc.redis.hgetall(zoneSubscribersKey(zones.push ?? ''))).some((raw) =>
      raw.includes(`"${stub.base}${path}"`),
    );

  it('forgets a subscription on every zone, and saying it again changes nothing', async () => {
    const sub = subscription('/leaving');
    expect((await subscribe({ zone: zones.push, subscription: sub })).status).toBe(201);
    expect(await subscribed('/leaving')).toBe(true);
    expect(await unsubscribe({ endpoint: sub.endpoint })).toEqual({
      status: 200,
      body: { ok: true, removed: [zones.push] },
    });
    expect(await subscribed('/leaving')).toBe(false);
    expect(await unsubscribe({ endpoint: sub.endpoint })).toEqual({ status: 200, body: { ok: true, removed: [] } });
    // Nothing is sent to it any more.
    stub.received.length = 0;
    await engine.engine.pushSender.runOnce();
    expect(stub.received.map((r) => r.path)).not.toContain('/leaving');
  });

  it('forgets it on one zone when the zone is named', async () => {
    const sub = subscription('/one-zone');
    expect((await subscribe({ zone: zones.push, subscription: sub })).status).toBe(201);
    expect((await unsubscribe({ endpoint: sub.endpoint, zone: 'someOtherZone' })).body).toEqual({
      ok: true,
      removed: [],
    });
    expect(await subscribed('/one-zone')).toBe(true);
    expect((await unsubscribe({ endpoint: sub.endpoint, zone: zones.push })).body).toEqual({
      ok: true,
      removed: [zones.push],
    });
  });

  it('refuses bad bodies naming the field', async () => {
    expect(await unsubscribe({})).toEqual({ status: 400, body: { errors: { endpoint: expect.any(String) } } });
    expect((await unsubscribe({ endpoint: 'http://127.0.0.1/x' })).body.errors).toHaveProperty(['endpoint']);
    expect((await unsubscribe({ endpoint: `${stub.base}/x`, zone: '../../etc' })).body.errors).toHaveProperty(['zone']);
    expect((await unsubscribe('{oops')).status).toBe(400);
  });

  it('a subscription the push service says is gone (410) is off its zone and off its own list of zones', async () => {
    const sub = subscription('/gone-later');
    expect((await subscribe({ zone: zones.push, subscription: sub })).status).toBe(201);
    await fx.app.svc.redis.del(...(await fx.app.svc.redis.keys('push:sent:*')));
    // The push service forgets it: from now on it answers 410 for it.
    const gone = { ...sub, endpoint: sub.endpoint.replace('/gone-later', '/gone/later') };
    expect((await subscribe({ zone: zones.push, subscription: gone })).status).toBe(201);
    await engine.engine.pushSender.runOnce();
    expect(await subscribed('/gone/later')).toBe(false);
    expect((await unsubscribe({ endpoint: gone.endpoint })).body).toEqual({ ok: true, removed: [] });
  });
});

describe('the push worker and the zone setting', () => {
  it('serves the service worker for the site root, built for this engine, and as a download', async () => {
    const r = await fetch(`${engine.base}/push/sw.js`);
    expect(r.headers.get('content-type')).toContain('javascript');
    const source = await r.text();
    expect(source).toContain(JSON.stringify(engine.base).slice(1, -1));
    expect(source).toContain('pushsubscriptionchange');
    expect(source).toContain('notificationclick');
    const d = await fetch(`${engine.base}/push/sw.js?download=1`);
    expect(d.headers.get('content-disposition')).toBe('attachment; filename="adnet-sw.js"');
  });

  it("takes the publisher's prompt moment, refuses bad ones naming the field, and bakes it into the widget", async () => {
    const site = await world.site();
    const create = (json: Record<string, unknown>) =>
      call<Record<string, unknown>>(fx.app, 'POST', '/api/pub/zones', {
        token: site.publisher.token,
        json: { site_id: site.id, name: 'P', ...json },
      });
    const plain = await create({ format: 'push' });
    expect(plain.body).toMatchObject({
      push_prompt: { on: 'click' },
      push_worker_url: expect.stringMatching(/\/push\/sw\.js$/),
    });
    const delayed = await create({ format: 'push', push_prompt: { on: 'delay', delay_s: 15 } });
    expect([delayed.status, delayed.body.push_prompt]).toEqual([201, { on: 'delay', delay_s: 15 }]);
    expect((await create({ format: 'push', push_prompt: { on: 'delay' } })).body).toEqual({
      errors: { 'push_prompt.delay_s': 'is required when on is delay' },
    });
    expect((await create({ format: 'push', push_prompt: { on: 'soon' } })).body).toEqual({
      errors: { 'push_prompt.on': expect.stringContaining('load, delay, click') },
    });
    expect((await create({ format: 'push', push_prompt: { on: 'load', delay_s: 5 } })).body).toEqual({
      errors: { 'push_prompt.delay_s': 'is only for on: delay' },
    });
    expect((await create({ format: 'native', push_prompt: { on: 'load' } })).body).toEqual({
      errors: { push_prompt: 'is only for push zones' },
    });
    expect((await create({ format: 'native' })).body.push_prompt).toBeNull();
    const patched = await call<Record<string, unknown>>(fx.app, 'PATCH', `/api/pub/zones/${String(plain.body.id)}`, {
      token: site.publisher.token,
      json: { push_prompt: { on: 'load' } },
    });
    expect(patched.body.push_prompt).toEqual({ on: 'load' });
  });
});

describe('the service worker, run against the engine', () => {
  // The built worker in a V8 context of its own with the few service-worker globals it uses; its fetches
  // reach the real engine. Chromium offers no way to fire `pushsubscriptionchange` (push-browser.test.ts
  // covers the rest in a browser), so the renewal is driven here.
  type Handler = (e: Record<string, unknown>) => void;
  async function loadWorker(subscribeAs: string) {
    const handlers = new Map<string, Handler>();
    const shown: { title: string; options: Record<string, unknown> }[] = [];
    const opened: string[] = [];
    const keysAskedFor: Uint8Array[] = [];
    const renewed = subscription(subscribeAs);
    const scope = {
      addEventListener: (type: string, fn: Handler) => handlers.set(type, fn),
      registration: {
        showNotification: (title: string, options: Record<string, unknown>) =>
          Promise.resolve(void shown.push({ title, options })),
        pushManager: {
          subscribe: (o: { applicationServerKey: Uint8Array }) => {
            keysAskedFor.push(o.applicationServerKey);
            return Promise.resolve({ endpoint: renewed.endpoint, toJSON: () => renewed });
          },
        },
      },
      clients: { openWindow: (url: string) => Promise.resolve(void opened.push(url)), claim: () => Promise.resolve() },
      skipWaiting: () => Promise.resolve(),
      caches: {
        open: () => Promise.resolve({ match: () => Promise.resolve(new Response(JSON.stringify([zones.push]))) }),
      },
      fetch,
      atob,
      Response,
    };
    const { runInNewContext } = await import('node:vm');
    runInNewContext(await (await fetch(`${engine.base}/push/sw.js`)).text(), scope);
    /** Fires `type` and waits for what the handler passed to waitUntil. */
    const fire = async (type: string, e: Record<string, unknown>) => {
      let pending: Promise<unknown> = Promise.resolve();
      handlers.get(type)?.({ ...e, waitUntil: (p: Promise<unknown>) => (pending = p) });
      await pending;
    };
    return { fire, shown, opened, keysAskedFor, renewed };
  }
  const subscribedPaths = async () =>
    Object.values(await fx.app.svc.redis.hgetall(zoneSubscribersKey(zones.push ?? ''))).map(
      (raw) => new URL((JSON.parse(raw) as { endpoint: string }).endpoint).pathname,
    );

  it('on pushsubscriptionchange subscribes anew with our key on every zone it keeps, and drops the old endpoint', async () => {
    const old = subscription('/about-to-change');
    expect((await subscribe({ zone: zones.push, subscription: old })).status).toBe(201);
    const w = await loadWorker('/changed');
    await w.fire('pushsubscriptionchange', { oldSubscription: { endpoint: old.endpoint }, newSubscription: null });
    const paths = await subscribedPaths();
    expect(paths).toContain('/changed');
    expect(paths).not.toContain('/about-to-change');
    const { public_key } = (await (await fetch(`${engine.base}/push/vapid-public-key`)).json()) as {
      public_key: string;
    };
    expect(Buffer.from(w.keysAskedFor[0] ?? []).toString('base64url')).toBe(public_key);
  });

  it('shows our ad and opens only our click link', async () => {
    const w = await loadWorker('/unused');
    const url = `${engine.base}/c/ticket/token`;
    await w.fire('push', {
      data: { text: () => JSON.stringify({ title: 'Hello', body: 'World', icon: 'https://cdn.example/i.png', url }) },
    });
    await w.fire('push', {
      data: { text: () => JSON.stringify({ title: 'Phish', body: '', icon: '', url: 'https://evil.example/c/x' }) },
    });
    await w.fire('push', { data: { text: () => 'not json' } });
    expect(w.shown).toEqual([
      { title: 'Hello', options: { body: 'World', icon: 'https://cdn.example/i.png', data: { url }, tag: 'adnet' } },
    ]);
    const close = () => undefined;
    await w.fire('notificationclick', { notification: { close, data: { url } } });
    await w.fire('notificationclick', { notification: { close, data: { url: 'javascript:alert(1)' } } });
    expect(w.opened).toEqual([url]);
  });
});
