import { execFileSync } from 'node:child_process';
import { createECDH, randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import { createServer } from 'node:https';
import type { Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, useTestApp } from './support/admin.ts';
import { zoneSubscribersKey } from '../../engine/src/push/push-store.ts';
import { eventually, startEngine } from './support/engine.ts';
import type { TestEngine } from './support/engine.ts';
import { World } from './support/world.ts';

const fx = useTestApp();
let engine: TestEngine;
let pushService: Server;
let pushBase = '';
const received: { path: string; headers: Record<string, string | string[] | undefined> }[] = [];
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
    received.push({ path: req.url ?? '', headers: req.headers });
    req.resume();
    res.writeHead(req.url?.startsWith('/gone') ? 410 : 201).end();
  });
  await new Promise<void>((r) => pushService.listen(0, '127.0.0.1', r));
  pushBase = `https://127.0.0.1:${(pushService.address() as AddressInfo).port}`;
  return join(dir, 'cert.pem');
}

const subscription = (path: string) => ({
  endpoint: `${pushBase}${path}`,
  expirationTime: null,
  keys: { p256dh: createECDH('prime256v1').generateKeys().toString('base64url'), auth: randomBytes(16).toString('base64url') },
});
const subscribe = (body: unknown) =>
  fetch(`${engine.base}/push/subscribe`, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: JSON.stringify(body) }).then(async (r) => ({
    status: r.status,
    body: (await r.json()) as Record<string, unknown>,
  }));

let ca = '';

beforeAll(async () => {
  ca = await startPushService();
  const world = await World.create(fx.app);
  await world.campaign(await world.advertiser(100_000), { format: 'push', bid_usd: 3 });
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
