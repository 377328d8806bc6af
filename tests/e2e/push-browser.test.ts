import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, BrowserContext, CDPSession, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { zoneSubscribersKey } from '@adnet/engine/push-store';
import { useTestApp } from '@adnet/test-support/admin';
import { launchChromium } from '@adnet/test-support/browser';
import { eventually, servingZone, startEngine, streamedEvents } from '@adnet/test-support/engine';
import type { TestEngine } from '@adnet/test-support/engine';
import { PushServiceStub } from '@adnet/test-support/push-service';
import { World } from '@adnet/test-support/world';

// Web push in a real browser (issue 18, item 6): a push zone's widget asks for permission on the
// visitor's first click, registers our service worker from the publisher's site root, subscribes and
// tells the engine; the engine's sender encrypts a push ad to the subscription's push service (a local
// stand-in speaking the Web Push protocol), and the worker shows it as a notification.
//
// Two things stand in for what a browser in CI cannot do. Chromium subscribes through Google's push
// service (FCM) only: the page's PushManager.subscribe answers with a subscription on the local push
// service instead, keys made by the test (which plays the browser's decrypting half). And Chromium cannot
// be reached by a fake push service: what the engine sent is decrypted and handed to the service worker
// through the DevTools protocol (ServiceWorker.deliverPushMessage), which fires the same `push` event.

const fx = useTestApp();
let engine: TestEngine;
let stub: PushServiceStub;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let cdp: CDPSession;
let hostPage: Server;
let hostBase = '';
let subid = '';
let campaignId = 0;
const registrations = new Map<string, string>();

beforeAll(async () => {
  stub = await PushServiceStub.start();
  const world = await World.create(fx.app);
  campaignId = (
    await world.campaign(
      await world.advertiser(100_000),
      { format: 'push', bid_type: 'cpc', bid_usd: 0.2 },
      { title: 'Spring sale' },
    )
  ).campaign.id;
  const site = await world.site();
  subid = (await world.zone({ format: 'push', push_prompt: { on: 'click' } }, site)).subid;
  engine = await startEngine(fx.redis.url, {
    PUSH_SERVICE_HOSTS: '127.0.0.1',
    PUSH_CA_FILE: stub.caFile,
    PUSH_SEND_INTERVAL_MS: '3600000',
  });
  await servingZone(engine, subid, 1);

  // The publisher's site: its page with the zone's script, and our worker at its root as the cabinet says to host it.
  const worker = await (await fetch(`${engine.base}/push/sw.js?download=1`)).text();
  hostPage = createServer((req, res) => {
    if (req.url === '/adnet-sw.js') return void res.writeHead(200, { 'content-type': 'text/javascript' }).end(worker);
    res
      .writeHead(200, { 'content-type': 'text/html' })
      .end(`<!doctype html><h1>News</h1><script src="${engine.base}/w/${subid}.js"></script>`);
  });
  await new Promise<void>((r) => hostPage.listen(0, '127.0.0.1', r));
  // 127.0.0.1 is a secure context: service workers and notifications need one.
  hostBase = `http://127.0.0.1:${(hostPage.address() as AddressInfo).port}`;

  browser = await launchChromium();
  context = await browser.newContext();
  const sub = stub.subscription('/browser-1');
  // The subscription Chromium would get from its push service, on ours (see the top of this file). In page terms: a string.
  await context.addInitScript(`(() => {
    const s = ${JSON.stringify(sub)};
    let made = null;
    const fake = () => (made ? { endpoint: made.endpoint, options: { userVisibleOnly: true }, toJSON: () => made, unsubscribe: () => Promise.resolve(true) } : null);
    PushManager.prototype.getSubscription = () => Promise.resolve(fake());
    PushManager.prototype.subscribe = (options) => {
      if (!options || !options.userVisibleOnly || !options.applicationServerKey) return Promise.reject(new Error('subscribe needs userVisibleOnly and our key'));
      made = { endpoint: s.endpoint, expirationTime: null, keys: s.keys };
      return Promise.resolve(fake());
    };
  })()`);
  page = await context.newPage();
  cdp = await context.newCDPSession(page);
  cdp.on(
    'ServiceWorker.workerRegistrationUpdated',
    (e: { registrations: { registrationId: string; scopeURL: string }[] }) => {
      for (const r of e.registrations) registrations.set(r.scopeURL, r.registrationId);
    },
  );
  await cdp.send('ServiceWorker.enable');
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await engine?.stop();
  stub?.close();
  hostPage?.close();
});

const subscribers = () => fx.app.svc.redis.hgetall(zoneSubscribersKey(subid));

describe('web push in Chromium', () => {
  it('asks on the first click, registers the worker at the site root and subscribes with our key', async () => {
    await page.goto(`${hostBase}/`);
    await new Promise((r) => setTimeout(r, 500));
    // The publisher chose "on a click": nothing before it.
    expect(Object.keys(await subscribers())).toHaveLength(0);
    // The visitor says yes to the prompt the click brings up.
    await context.grantPermissions(['notifications'], { origin: hostBase });
    expect(Object.keys(await subscribers())).toHaveLength(0);
    await page.click('h1');
    await eventually(async () => Object.keys(await subscribers()).length === 1, 10_000);
    expect(Object.values(await subscribers())[0]).toContain(`${stub.base}/browser-1`);
    await eventually(() => registrations.has(`${hostBase}/`), 10_000);
    expect(
      await page.evaluate<string>(
        `navigator.serviceWorker.getRegistration('/').then((r) => (r.active || r.installing || r.waiting).scriptURL)`,
      ),
    ).toBe(`${hostBase}/adnet-sw.js`);
  });

  it('shows the push ad the engine sent as a notification, and the delivery is the one impression', async () => {
    const delivered = new Promise<string>((resolve) =>
      stub.onPush((p) => p.path === '/browser-1' && resolve(stub.decrypt('/browser-1', p.body))),
    );
    await engine.engine.pushSender.runOnce();
    const message = await delivered;
    const { title, url } = JSON.parse(message) as { title: string; url: string };
    expect(title).toBe('Spring sale');
    await cdp.send('ServiceWorker.deliverPushMessage', {
      origin: `${hostBase}/`.slice(0, -1),
      registrationId: registrations.get(`${hostBase}/`) ?? '',
      data: message,
    });
    const shown = () =>
      page.evaluate<{ title: string; body: string; data: unknown }[]>(
        `navigator.serviceWorker.ready.then((r) => r.getNotifications()).then((ns) => ns.map((n) => ({ title: n.title, body: n.body, data: n.data })))`,
      );
    await eventually(async () => (await shown()).length === 1, 10_000);
    expect(await shown()).toEqual([{ title: 'Spring sale', body: 'Buy now', data: { url } }]);
    expect(url.startsWith(`${engine.base}/c/`)).toBe(true);
    const impressions = (await streamedEvents(fx.app.svc.redis, engine)).filter(
      (e) => e.type === 'impression' && e.campaign_id === campaignId,
    );
    expect(impressions).toHaveLength(1);
  });

  it('a message that is not ours, or whose link is not our click link, shows nothing', async () => {
    const titlesShown = () =>
      page.evaluate<string[]>(
        `navigator.serviceWorker.ready.then((r) => r.getNotifications()).then((ns) => ns.map((n) => n.title))`,
      );
    const before = (await titlesShown()).length;
    for (const data of ['not json', JSON.stringify({ title: 'Phish', body: 'x', url: 'https://evil.example/c/x' })]) {
      await cdp.send('ServiceWorker.deliverPushMessage', {
        origin: hostBase,
        registrationId: registrations.get(`${hostBase}/`) ?? '',
        data,
      });
    }
    await new Promise((r) => setTimeout(r, 500));
    const titles = await titlesShown();
    expect(titles).toHaveLength(before);
    expect(titles).not.toContain('Phish');
  });

  it('unsubscribes from the page, and saying it twice is harmless', async () => {
    const body = JSON.stringify(JSON.stringify({ endpoint: `${stub.base}/browser-1` }));
    const bye = () =>
      page.evaluate<unknown>(
        `fetch('${engine.base}/push/unsubscribe', { method: 'POST', headers: { 'content-type': 'text/plain' }, body: ${body} }).then((r) => r.json())`,
      );
    expect(await bye()).toEqual({ ok: true, removed: [subid] });
    expect(await bye()).toEqual({ ok: true, removed: [] });
    expect(await subscribers()).toEqual({});
  });
});
