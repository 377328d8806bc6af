import { execFileSync } from 'node:child_process';
import { createDecipheriv, createECDH, hkdfSync, randomBytes } from 'node:crypto';
import type { ECDH } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import { createServer } from 'node:https';
import type { Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, useTestApp } from './support/admin.ts';
import { PUSH_LIMITS, definePushScripts, saveSubscription, zoneSubscribersKey } from '../../engine/src/push/push-store.ts';
import { Redis } from 'ioredis';
import { eventually, startEngine, streamedEvents } from './support/engine.ts';
import type { TestEngine } from './support/engine.ts';
import { World } from './support/world.ts';
import { decodeTicket } from '../../engine/src/tracking/signed-token.ts';
import type { BidTicket } from '../../engine/src/tracking/signed-token.ts';

const fx = useTestApp();
let engine: TestEngine;
let pushService: Server;
let pushBase = '';
const received: { path: string; headers: Record<string, string | string[] | undefined>; body: Buffer }[] = [];
let cpcCampaign = 0;
/** Each subscription's private key and auth secret, by endpoint path, to read what was sent to it. */
const keysOf = new Map<string, { ecdh: ECDH; auth: Buffer }>();
const zones: Record<string, string> = {};

/** A stand-in for a browser push service: HTTPS with a self-signed certificate; /gone answers 410. */
async function startPushService(): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'push-'));
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      join(dir, 'key.pem'),
      '-out',
      join(dir, 'cert.pem'),
      '-days',
      '1',
      '-subj',
      '/CN=127.0.0.1',
      '-addext',
      'subjectAltName=IP:127.0.0.1',
    ],
    { stdio: 'ignore' },
  );
  pushService = createServer({ key: readFileSync(join(dir, 'key.pem')), cert: readFileSync(join(dir, 'cert.pem')) }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks) });
      res.writeHead(req.url?.startsWith('/gone') ? 410 : 201).end();
    });
  });
  await new Promise<void>((r) => pushService.listen(0, '127.0.0.1', r));
  pushBase = `https://127.0.0.1:${(pushService.address() as AddressInfo).port}`;
  return join(dir, 'cert.pem');
}

const subscription = (path: string) => {
  const ecdh = createECDH('prime256v1');
  const auth = randomBytes(16);
  keysOf.set(path, { ecdh, auth });
  return {
    endpoint: `${pushBase}${path}`,
    expirationTime: null,
    keys: { p256dh: ecdh.generateKeys().toString('base64url'), auth: auth.toString('base64url') },
  };
};

/** What a browser does with a push message (RFC 8291, aes128gcm): the notification's JSON. */
function decryptPush(path: string, body: Buffer): { url: string } {
  const { ecdh, auth } = keysOf.get(path) as { ecdh: ECDH; auth: Buffer };
  const salt = body.subarray(0, 16);
  const idLen = body.readUInt8(20);
  const serverKey = body.subarray(21, 21 + idLen);
  const sealed = body.subarray(21 + idLen);
  const info = Buffer.concat([Buffer.from('WebPush: info\0'), ecdh.getPublicKey(), serverKey]);
  const ikm = Buffer.from(hkdfSync('sha256', ecdh.computeSecret(serverKey), auth, info, 32));
  const key = Buffer.from(hkdfSync('sha256', ikm, salt, Buffer.from('Content-Encoding: aes128gcm\0'), 16));
  const nonce = Buffer.from(hkdfSync('sha256', ikm, salt, Buffer.from('Content-Encoding: nonce\0'), 12));
  const decipher = createDecipheriv('aes-128-gcm', key, nonce);
  decipher.setAuthTag(sealed.subarray(sealed.length - 16));
  const plain = Buffer.concat([decipher.update(sealed.subarray(0, sealed.length - 16)), decipher.final()]);
  return JSON.parse(plain.subarray(0, plain.lastIndexOf(2)).toString('utf8')) as { url: string };
}

const subscribe = (body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${engine.base}/push/subscribe`, { method: 'POST', headers: { 'content-type': 'text/plain', ...headers }, body: JSON.stringify(body) }).then(
    async (r) => ({
      status: r.status,
      body: (await r.json()) as Record<string, unknown>,
    }),
  );

let ca = '';
let world: World;

beforeAll(async () => {
  ca = await startPushService();
  world = await World.create(fx.app);
  // CPC $0.20 at the 2% push prior ranks as a $4 CPM: it wins every notification.
  cpcCampaign = (await world.campaign(await world.advertiser(100_000), { format: 'push', bid_type: 'cpc', bid_usd: 0.2 })).campaign.id;
  const site = await world.site();
  const pub = site.publisher;
  for (const [name, format] of [
    ['push', 'push'],
    ['native', 'native'],
  ] as const) {
    zones[name] = (await call<{ subid: string }>(fx.app, 'POST', '/api/pub/zones', { token: pub.token, json: { site_id: site.id, name, format } })).body.subid;
  }
  engine = await startEngine(fx.redis.url, { PUSH_SERVICE_HOSTS: '127.0.0.1', PUSH_CA_FILE: ca, PUSH_SEND_INTERVAL_MS: '3600000' });
  await eventually(() => engine.engine.mirror.index?.zones.get(zones.push ?? '')?.serving === true && engine.engine.mirror.index.candidateCount === 1);
  await new Promise((r) => setTimeout(r, 300));
});
afterAll(async () => {
  await engine?.stop();
  pushService?.close();
});

describe('web push', () => {
  it('publishes its VAPID public key', async () => {
    const r = (await (await fetch(`${engine.base}/push/vapid-public-key`)).json()) as { public_key: string };
    expect(Buffer.from(r.public_key, 'base64url')).toHaveLength(65);
  });

  it('validates subscriptions and accepts only push-service endpoints on push zones', async () => {
    expect((await subscribe({ zone: zones.push, subscription: { ...subscription('/x'), endpoint: 'http://127.0.0.1/x' } })).body.errors).toHaveProperty([
      'subscription.endpoint',
    ]);
    expect((await subscribe({ zone: zones.push, subscription: { ...subscription('/x'), endpoint: 'https://169.254.169.254/latest' } })).status).toBe(400);
    expect((await subscribe({ zone: zones.push, subscription: { ...subscription('/x'), keys: { p256dh: 'abc', auth: 'def' } } })).body.errors).toEqual({
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
    received.length = 0;
    await engine.engine.pushSender.runOnce();
    expect(received.map((r) => r.path).sort()).toEqual(['/gone', '/ok']);
    for (const r of received) {
      expect(r.headers['content-encoding']).toBe('aes128gcm');
      expect(String(r.headers.authorization)).toMatch(/^vapid t=.+, k=.+$/);
    }
    expect(engine.engine.pushSender.dropped).toBe(1);
    expect(Object.keys(await fx.app.svc.redis.hgetall(zoneSubscribersKey(zones.push ?? '')))).toHaveLength(1);
    // The frequency cap holds: a second pass sends nothing.
    received.length = 0;
    await engine.engine.pushSender.runOnce();
    expect(received).toEqual([]);
  });

  it('the frequency cap holds across engines: three senders at once notify each subscriber once', async () => {
    const more = await Promise.all(
      [0, 1].map(() => startEngine(fx.redis.url, { PUSH_SERVICE_HOSTS: '127.0.0.1', PUSH_CA_FILE: ca, PUSH_SEND_INTERVAL_MS: '3600000' })),
    );
    try {
      await Promise.all(more.map((e) => eventually(() => e.engine.mirror.index?.zones.get(zones.push ?? '')?.serving === true)));
      for (const path of ['/fresh-1', '/fresh-2', '/fresh-3'])
        expect((await subscribe({ zone: zones.push, subscription: subscription(path) })).status).toBe(201);
      received.length = 0;
      await Promise.all([engine, ...more].map((e) => e.engine.pushSender.runOnce()));
      // The earlier subscriber is still inside its interval; each new one gets exactly one notification.
      expect(received.map((r) => r.path).sort()).toEqual(['/fresh-1', '/fresh-2', '/fresh-3']);
    } finally {
      await Promise.all(more.map((e) => e.stop()));
    }
  });
});

describe('a push notification clicked', () => {
  it('is a valid click, billed to the CPC campaign, when a person opens it after it arrived', async () => {
    expect((await subscribe({ zone: zones.push, subscription: subscription('/clicker') })).status).toBe(201);
    received.length = 0;
    await engine.engine.pushSender.runOnce();
    const sent = received.find((r) => r.path === '/clicker');
    expect(sent).toBeDefined();
    const { url } = decryptPush('/clicker', sent?.body ?? Buffer.alloc(0));
    expect(url).toContain('/c/');
    await new Promise((r) => setTimeout(r, 1_100));
    const ua = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/125.0 Safari/537.36';
    expect((await fetch(url, { headers: { 'user-agent': ua }, redirect: 'manual' })).status).toBe(302);
    const clicks = (await streamedEvents(fx.app.svc.redis, engine)).filter((e) => e.type === 'click' && e.campaign_id === cpcCampaign);
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
    received.length = 0;
    await engine.engine.pushSender.runOnce();
    expect(received.map((r) => r.path)).not.toContain(path);
    expect(Object.values(await fx.app.svc.redis.hgetall(zoneSubscribersKey(zones.push ?? ''))).some((raw) => raw.includes(path))).toBe(false);
  });
});

describe("a subscriber's country, device, OS and browser", () => {
  it('are taken when it subscribes and target the notifications it gets later', async () => {
    const adv = await world.advertiser(100_000);
    // Outbids the untargeted CPC campaign ($4 eCPM), but only for Dutch Android phones.
    const targeted = { format: 'push', geo_include: ['nl'], device_types: ['mobile'], os_include: ['android'], bid_usd: 8 };
    const dutch = (await world.campaign(adv, targeted)).campaign.id;
    await eventually(() => engine.engine.mirror.index?.candidateCount === 2);
    const PIXEL = 'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/125.0 Mobile Safari/537.36';
    // Behind the trusted proxy (loopback), from a Dutch address: an Android phone, and a client that is none.
    expect(
      (await subscribe({ zone: zones.push, subscription: subscription('/dutch-phone') }, { 'user-agent': PIXEL, 'x-forwarded-for': '193.0.0.1' })).status,
    ).toBe(201);
    expect((await subscribe({ zone: zones.push, subscription: subscription('/dutch-desktop') }, { 'x-forwarded-for': '193.0.0.1' })).status).toBe(201);
    await new Promise((r) => setTimeout(r, 300)); // the new campaign's budget slice
    received.length = 0;
    await engine.engine.pushSender.runOnce();
    const ticketOf = (path: string) => {
      const { url } = decryptPush(path, received.find((r) => r.path === path)?.body ?? Buffer.alloc(0));
      return decodeTicket('t'.repeat(40), url.split('/c/')[1]?.split('/')[0] ?? '') as BidTicket;
    };
    const phone = ticketOf('/dutch-phone');
    expect([phone.campaignId, phone.country, phone.device, phone.os, phone.browser]).toEqual([dutch, 'nl', 'mobile', 'android', 'chrome']);
    expect(ticketOf('/dutch-desktop').campaignId).toBe(cpcCampaign);
  });
});
