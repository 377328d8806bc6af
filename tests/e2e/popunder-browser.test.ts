import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, useTestApp } from '@adnet/test-support/admin';
import type { Account } from '@adnet/test-support/admin';
import { eventually, startEngine, streamedEvents } from '@adnet/test-support/engine';
import type { TestEngine } from '@adnet/test-support/engine';
import { launchChromium } from '@adnet/test-support/browser';
import { startPublisherPage, stopAll } from './support/publisher-page.ts';
import type { PublisherPage } from './support/publisher-page.ts';

// A popunder zone's widget in Chromium (issue 39 items 1 and 6): the pop opens on the visitor's click, once per page
// view and cap, and counts (impression and click at once, charged once) only when its window really opened.
const fx = useTestApp();
let engine: TestEngine;
let browser: Browser;
let hostPage: PublisherPage;
let hostBase = '';
let frameBase = '';
let adv: Account;
let campaignId = 0;
const zones: Record<'first' | 'any', { id: number; subid: string }> = {
  first: { id: 0, subid: '' },
  any: { id: 0, subid: '' },
};
const ua = (n: number) =>
  `Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/125.0.${n}.0 Safari/537.36`;
/** A pop costs $20 per thousand (the zone's floor, no rival): two cents, 20 000 000 nano-dollars. */
const POP_NANO = 20_000_000;

beforeAll(async () => {
  // The publisher's page (its text, a link, a foreign frame) and the advertiser's landing, on the zone's site.
  hostPage = await startPublisherPage(fx.app, (url, res) => {
    if (url.pathname === '/landing') return void res.end('<h1>Landing</h1>');
    // Someone else's page framing the publisher's page, widget and all.
    if (url.pathname === '/outer')
      return void res.end(
        `<h1 id="outer">Not the publisher's</h1><iframe id="framed" src="${hostBase}/?zone=${url.searchParams.get('zone') ?? ''}" width="600" height="400"></iframe>`,
      );
    if (url.pathname === '/frame')
      return void res.end('<button id="inside" style="width:200px;height:80px">In a frame</button>');
    const zone = url.searchParams.get('zone') ?? '';
    res.end(
      `<!doctype html><html><body><h1 id="title">Host page</h1><p id="text">Article text.</p>
<iframe id="foreign" src="${frameBase}/frame" width="300" height="120"></iframe>
<script src="${engine.base}/w/${zone}.js"></script><p id="after" style="height:400px">After.</p></body></html>`,
    );
  });
  const { world, site, port } = hostPage;
  hostBase = hostPage.base;
  // Another origin: someone else's frame on the publisher's page.
  frameBase = `http://frames.other.test:${port}`;
  adv = hostPage.adv;
  const { campaign } = await world.campaign(
    adv,
    { format: 'popunder', bid_usd: 30 },
    { landing_url: `${hostBase}/landing?c={click_id}&cost={cost}` },
  );
  campaignId = campaign.id;
  zones.first = await world.zone({ format: 'popunder', pop_freq_cap_hours: 1, floor_cpm_usd: 20 }, site);
  zones.any = await world.zone(
    { format: 'popunder', pop_trigger: 'any_click', pop_new_tab: false, floor_cpm_usd: 20 },
    site,
  );
  engine = await startEngine(fx.redis.url);
  await eventually(() => engine.engine.mirror.index?.zones.get(zones.any.subid)?.serving === true);
  browser = await launchChromium();
}, 60_000);
afterAll(() => stopAll(browser, hostPage, engine));

const mine = async () => (await streamedEvents(fx.app.svc.redis, engine)).filter((e) => e.campaign_id === campaignId);
const counted = async (type: 'impression' | 'click') => (await mine()).filter((e) => e.type === type);
const spentCents = async () =>
  (await call<{ total_spent_cents: number }>(fx.app, 'GET', `/api/adv/campaigns/${campaignId}`, { token: adv.token }))
    .body.total_spent_cents;

/** A visitor's browser: its own user agent, so its pop cap is its own. */
async function visitor(n: number, blockPopups?: 'always' | 'once'): Promise<{ context: BrowserContext; pops: Page[] }> {
  const context = await browser.newContext({ userAgent: ua(n) });
  const pops: Page[] = [];
  // A pop-up blocker, as the page sees it: window.open answers null.
  if (blockPopups)
    await context.addInitScript({
      content: `{ const open = window.open.bind(window); let refused = 0;
        window.open = (...args) => (${blockPopups === 'once'} && refused++ > 0 ? open(...args) : null); }`,
    });
  return { context, pops };
}

/** A page of the visitor's: what it opens is a pop. */
async function ownPage(context: BrowserContext, pops: Page[]): Promise<Page> {
  const page = await context.newPage();
  page.on('popup', (p) => pops.push(p));
  return page;
}

/** A page view of the zone, its pop asked for and kept; the beacons and pop answers it sees. */
async function pageView({ context, pops }: { context: BrowserContext; pops: Page[] }, subid: string) {
  const page = await ownPage(context, pops);
  const beacons: string[] = [];
  const answers: number[] = [];
  page.on('request', (r) => {
    if (r.url().startsWith(`${engine.base}/b/`)) beacons.push(r.url());
  });
  page.on('response', (r) => {
    if (r.url().startsWith(`${engine.base}/imp?`)) answers.push(r.status());
  });
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(`${hostBase}/?zone=${subid}`);
  await eventually(() => answers.length > 0);
  // The answer is in; a person reads a moment before clicking.
  await page.waitForTimeout(300);
  return { page, beacons, answers, errors };
}

describe("a popunder zone's widget in Chromium", () => {
  let beaconUrl = '';

  it("opens one pop on the visitor's first click, on the winning landing with its click id, counted and charged once", async () => {
    const v = await visitor(1);
    const { context, pops } = v;
    const spent = await spentCents();
    const view = await pageView(v, zones.first.subid);
    expect(view.answers).toEqual([200]);
    // A click inside someone else's frame is not a click on the publisher's page.
    await view.page.frameLocator('#foreign').locator('#inside').click();
    await view.page.waitForTimeout(500);
    expect(pops).toHaveLength(0);
    await view.page.click('#text');
    await eventually(() => pops.length === 1);
    await pops[0]?.waitForLoadState();
    const landing = new RegExp(`^${hostBase}/landing\\?c=([0-9a-f-]{36})&cost=20$`).exec(pops[0]?.url() ?? '');
    expect(landing, pops[0]?.url()).not.toBeNull();
    const clickId = landing?.[1];
    // The second click on the page opens nothing.
    await view.page.click('#after');
    await eventually(async () => (await counted('click')).length === 1);
    await view.page.waitForTimeout(500);
    expect(pops).toHaveLength(1);
    expect(view.beacons).toHaveLength(1);
    beaconUrl = view.beacons[0] ?? '';
    const impressions = await counted('impression');
    expect(impressions).toHaveLength(1);
    expect(impressions[0]).toMatchObject({ zone_id: zones.first.id, integration: 'popunder', charge_nano: POP_NANO });
    expect(await counted('click')).toMatchObject([
      { click_id: clickId, invalid: false, integration: 'popunder', charge_nano: 0 },
    ]);
    await eventually(async () => (await spentCents()) === spent + 2);
    expect(view.errors).toEqual([]);

    // A second page view within the cap: the page's storage keeps it, so the widget asks nothing.
    const again = await ownPage(context, pops);
    const asked: string[] = [];
    again.on('request', (r) => {
      if (r.url().startsWith(`${engine.base}/imp?`)) asked.push(r.url());
    });
    await again.goto(`${hostBase}/?zone=${zones.first.subid}`);
    await again.waitForTimeout(500);
    await again.click('#text');
    await again.waitForTimeout(500);
    expect([asked, pops.length]).toEqual([[], 1]);
    await context.close();

    // The same visitor with its storage cleared (a new profile): the engine's cap, shared by every engine, holds.
    const cleared = await visitor(1);
    const view2 = await pageView(cleared, zones.first.subid);
    expect(view2.answers).toEqual([204]);
    await view2.page.click('#text');
    await view2.page.waitForTimeout(500);
    expect(cleared.pops).toHaveLength(0);
    await cleared.context.close();
    expect(await counted('impression')).toHaveLength(1);
    expect(await spentCents()).toBe(spent + 2);
  });

  it('charges nothing for a replayed or forged pop beacon', async () => {
    expect(beaconUrl).toMatch(/\/b\//);
    const spent = await spentCents();
    const headers = { 'user-agent': ua(1) };
    const replays = await Promise.all(Array.from({ length: 5 }, () => fetch(beaconUrl, { headers })));
    expect(replays.map((r) => r.status)).toEqual(Array(5).fill(200));
    const ticket = beaconUrl.split('/b/')[1] ?? '';
    const forged = `${engine.base}/b/${ticket.slice(0, -4)}${ticket.slice(-4) === 'AAAA' ? 'BBBB' : 'AAAA'}`;
    expect((await fetch(forged, { headers })).status).toBe(404);
    await new Promise((r) => setTimeout(r, 500));
    expect(await counted('impression')).toHaveLength(1);
    expect(await counted('click')).toHaveLength(1);
    expect(await spentCents()).toBe(spent);
  });

  it('charges nothing when the browser blocks the pop (window.open answers null)', async () => {
    const v = await visitor(2, 'always');
    const { context, pops } = v;
    const spent = await spentCents();
    const view = await pageView(v, zones.first.subid);
    // The pop was served (a ticket, a budget hold), but never opened.
    expect(view.answers).toEqual([200]);
    await view.page.click('#text');
    await view.page.click('#after');
    await view.page.waitForTimeout(800);
    expect([pops.length, view.beacons.length]).toEqual([0, 0]);
    expect(await counted('impression')).toHaveLength(1);
    expect(await spentCents()).toBe(spent);
    await context.close();
  });

  it('on an any_click zone, a click the blocker refused leaves the pop for the next click, opened behind the page', async () => {
    const v = await visitor(3, 'once');
    const { context, pops } = v;
    const spent = await spentCents();
    const view = await pageView(v, zones.any.subid);
    await view.page.click('#text');
    await view.page.waitForTimeout(500);
    expect(pops).toHaveLength(0);
    await view.page.click('#title');
    await eventually(() => pops.length === 1);
    await view.page.click('#after');
    await eventually(async () => (await counted('impression')).some((e) => e.zone_id === zones.any.id));
    await view.page.waitForTimeout(500);
    expect(pops).toHaveLength(1);
    expect(view.beacons).toHaveLength(1);
    expect((await counted('impression')).filter((e) => e.zone_id === zones.any.id)).toHaveLength(1);
    expect((await counted('click')).filter((e) => e.zone_id === zones.any.id)).toHaveLength(1);
    await eventually(async () => (await spentCents()) === spent + 2);
    await context.close();
  });

  it("opens nothing from a frame of another origin than the top page's: the widget there does not even ask", async () => {
    const v = await visitor(4);
    const page = await ownPage(v.context, v.pops);
    const asked: string[] = [];
    v.context.on('request', (r) => {
      if (r.url().startsWith(`${engine.base}/imp?`)) asked.push(r.url());
    });
    await page.goto(`${frameBase}/outer?zone=${zones.first.subid}`);
    const framed = page.frameLocator('#framed');
    await framed.locator('#text').waitFor();
    // The script ran in the frame (its zone's script was loaded), yet asked for no pop.
    await eventually(() => page.frames().some((f) => f.url().startsWith(hostBase)));
    await page.waitForTimeout(500);
    await framed.locator('#text').click();
    await page.click('#outer');
    await page.waitForTimeout(500);
    expect([asked, v.pops.length]).toEqual([[], 0]);
    await v.context.close();
  });

  it("judges a pop's ask as /imp judges a display ad's, and a beacon from another browser takes no cap", async () => {
    const ask = (userAgent: string, headers: Record<string, string> = {}) =>
      fetch(`${engine.base}/imp?z=${zones.first.subid}&fp=fp-${userAgent.length}`, {
        headers: { 'user-agent': userAgent, ...headers },
      });
    const zoneNobids = async (reason: string) =>
      (await streamedEvents(fx.app.svc.redis, engine)).filter(
        (e) => e.type === 'nobid' && e.zone_id === zones.first.id && e.reason === reason,
      ).length;
    const before = { bot: await zoneNobids('bot_traffic'), foreign: await zoneNobids('foreign_origin') };
    expect((await ask('Mozilla/5.0 (compatible; Googlebot/2.1)')).status).toBe(204);
    expect((await ask(ua(5), { origin: 'https://elsewhere.example' })).status).toBe(204);
    await eventually(
      async () =>
        (await zoneNobids('bot_traffic')) === before.bot + 1 &&
        (await zoneNobids('foreign_origin')) === before.foreign + 1,
    );
    const served = await ask(ua(5), { origin: hostBase });
    expect(served.status).toBe(200);
    const { pop } = (await served.json()) as { pop: { url: string; beacon_url: string } };
    expect(pop.url).toMatch(new RegExp(`^${hostBase}/landing\\?c=[0-9a-f-]{36}&cost=20$`));
    const spent = await spentCents();
    // Fired from another browser: recorded apart, charged nothing, and the visitor's pop is still its own.
    expect((await fetch(pop.beacon_url, { headers: { 'user-agent': ua(6) } })).status).toBe(200);
    await eventually(async () =>
      (await mine()).some((e) => e.type === 'uncounted' && 'reason' in e && e.reason === 'mismatch'),
    );
    const impressions = (await counted('impression')).length;
    expect(await spentCents()).toBe(spent);
    await fetch(pop.beacon_url, { headers: { 'user-agent': ua(5) } });
    await eventually(async () => (await counted('impression')).length === impressions + 1);
    await eventually(async () => (await spentCents()) === spent + 2);
  });

  it('counts one pop of a visitor whose two pages both opened theirs before either was counted (two tabs)', async () => {
    const ask = () =>
      fetch(`${engine.base}/imp?z=${zones.first.subid}&fp=two-tabs`, {
        headers: { 'user-agent': ua(7), origin: hostBase },
      });
    const answers = await Promise.all([ask(), ask()]);
    expect(answers.map((r) => r.status)).toEqual([200, 200]);
    const beacons = await Promise.all(
      answers.map(async (r) => ((await r.json()) as { pop: { beacon_url: string } }).pop.beacon_url),
    );
    const impressions = (await counted('impression')).length;
    const clicks = (await counted('click')).length;
    const spent = await spentCents();
    await Promise.all(beacons.map((u) => fetch(u, { headers: { 'user-agent': ua(7) } })));
    await eventually(async () => (await counted('click')).length === clicks + 1);
    await new Promise((r) => setTimeout(r, 300));
    expect([(await counted('impression')).length, (await counted('click')).length]).toEqual([
      impressions + 1,
      clicks + 1,
    ]);
    await eventually(async () => (await spentCents()) === spent + 2);
  });
});
