import type { Browser, BrowserContext } from 'playwright-core';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '@adnet/test-support/admin';
import { eventually, startEngine, streamedEvents } from '@adnet/test-support/engine';
import type { TestEngine } from '@adnet/test-support/engine';
import { desktopContext } from '@adnet/test-support/browser';
import { desktopBrowser, serveVastClient, startPublisherPage, stopAll } from './support/publisher-page.ts';
import type { PublisherPage } from './support/publisher-page.ts';

const fx = useTestApp();
let engine: TestEngine;
let browser: Browser;
let context: BrowserContext;
let hostPage: PublisherPage;
let hostBase = '';
const subids: Record<string, string> = {};
const zoneIds: Record<string, number> = {};
/** In a fallback frame: marks that it ran, and whether the host page was out of its reach. */
const FRAME_PROBE = `<script>const p = document.getElementById('house'); p.dataset.ran = '1';
try { parent.document.title = 'reached'; } catch { p.dataset.isolated = '1'; }
try { localStorage.setItem('k', '1'); } catch { p.dataset.noStorage = '1'; }</script>`;

beforeAll(async () => {
  // The publisher's page and the advertiser's landing page, on another origin than the ad server.
  hostPage = await startPublisherPage(fx.app, (url, res) => {
    if (url.pathname === '/landing') return void res.end('<h1>Landing</h1>');
    if (url.pathname === '/house-ad') return void res.end(`<p id="house">House page</p>${FRAME_PROBE}`);
    if (url.pathname === '/vast-client.js') return serveVastClient(res);
    const zone = url.searchParams.get('zone') ?? '';
    res.end(
      `<!doctype html><html><head><style>img{border:5px solid red}</style></head><body><h1 id="title">Host page</h1><p>Article text.</p><script src="${engine.base}/w/${zone}.js"></script><p id="after">After the ad.</p></body></html>`,
    );
  });
  const { world, site, adv } = hostPage;
  // The page is on the zone's site, as far as the browser knows (launchChromium resolves it here).
  hostBase = hostPage.base;
  await world.campaign(adv, { format: 'banner', bid_usd: 2 }, { landing_url: `${hostBase}/landing?c={click_id}` });
  await world.campaign(adv, { format: 'floating_video', bid_usd: 4 });
  await world.campaign(adv, { format: 'native', bid_usd: 2 }, { cta_text: 'Shop now' });
  await world.campaign(adv, { format: 'in_page_push', bid_usd: 2 });
  for (const [name, fields] of Object.entries({
    banner: { format: 'banner', banner_width: 300, banner_height: 250 },
    video: { format: 'floating_video', fv_corner: 'tl', fv_delay_sec: 1, fv_freq_cap_hours: 0 },
    native: { format: 'native' },
    in_page_push: { format: 'in_page_push' },
    // No campaign has these sizes: they fall back to the publisher's own ad.
    fallback_html: {
      format: 'banner',
      banner_width: 728,
      banner_height: 90,
      fallback: { type: 'html', value: `<p id="house">House ad</p>${FRAME_PROBE}` },
    },
    fallback_url: {
      format: 'banner',
      banner_width: 320,
      banner_height: 50,
      fallback: { type: 'url', value: `${hostBase}/house-ad` },
    },
  })) {
    const z = await world.zone({ name, ...fields }, site);
    subids[name] = z.subid;
    zoneIds[name] = z.id;
  }
  engine = await startEngine(fx.redis.url);
  await eventually(
    () =>
      engine.engine.mirror.index?.zones.get(subids.video ?? '')?.serving === true &&
      engine.engine.mirror.index.candidateCount === 4,
  );
  await new Promise((r) => setTimeout(r, 300));
  ({ browser, context } = await desktopBrowser());
}, 60_000);
afterAll(() => stopAll(browser, hostPage, engine));

const events = () => streamedEvents(fx.app.svc.redis, engine);

describe('the widget in a real browser', () => {
  it('is small and cacheable', async () => {
    const res = await fetch(`${engine.base}/w/${subids.banner}.js`);
    const body = await res.text();
    expect(gzipSync(body).length).toBeLessThan(15 * 1024);
    const etag = res.headers.get('etag') ?? '';
    expect((await fetch(`${engine.base}/w/${subids.banner}.js`, { headers: { 'if-none-match': etag } })).status).toBe(
      304,
    );
    const unknown = await fetch(`${engine.base}/w/unknown.js`);
    expect(unknown.status).toBe(200);
    expect(await unknown.text()).toMatch(/^\/\* adnet: zone unknown is not serving \*\/\n$/);
  });

  it('renders a banner in isolation, counts it, and a click reaches the landing page with a click id', async () => {
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(`${hostBase}/?zone=${subids.banner}`);
    const img = page.locator('[data-adnet-zone] img');
    await img.waitFor({ state: 'visible', timeout: 10_000 });
    // The host page's styles do not reach into the ad (shadow DOM).
    type Styled = { getComputedStyle(el: unknown): { borderTopWidth: string } };
    expect(await img.evaluate((e) => (globalThis as unknown as Styled).getComputedStyle(e).borderTopWidth)).toBe('0px');
    expect(await page.locator('#after').isVisible()).toBe(true);
    await page.waitForTimeout(600); // a person looks before clicking
    const [landing] = await Promise.all([context.waitForEvent('page'), img.click({ position: { x: 40, y: 30 } })]);
    await landing.waitForLoadState();
    expect(landing.url()).toMatch(new RegExp(`^${hostBase}/landing\\?c=[0-9a-f-]{36}$`));
    expect(errors).toEqual([]);
    const mine = (await events()).filter(
      (e) => e.zone_id !== undefined && (e.type === 'impression' || e.type === 'click'),
    );
    const click = mine.find((e) => e.type === 'click');
    // The widget's render beacon made the impression, and the ad, in view for over a second, was viewable.
    const impression = mine.find((e) => e.type === 'impression');
    expect(impression).toBeDefined();
    await eventually(async () =>
      (await events()).some((e) => e.type === 'viewable' && e.bid_id === impression?.bid_id),
    );
    expect(click).toMatchObject({ invalid: false });
    expect(landing.url()).toContain(click?.click_id ?? 'missing');
    await page.close();
    await landing.close();
  });

  it('holds a click that comes while the render beacon is on its way until it is answered: the click counts', async () => {
    // A slow network for the render beacon alone: it reaches the engine only once the test lets it, after the click.
    const slow = await desktopContext(browser);
    const beacons: number[] = [];
    let release = () => {};
    const released = new Promise<void>((r) => (release = r));
    await slow.route(/\/b\/[^/?]+$/, async (route) => {
      beacons.push(Date.now());
      await released;
      await route.continue();
    });
    const page = await slow.newPage();
    await page.goto(`${hostBase}/?zone=${subids.banner}`);
    const img = page.locator('[data-adnet-zone] img');
    await img.waitFor({ state: 'visible', timeout: 10_000 });
    await page.waitForTimeout(350); // past the 300 ms a person needs at least
    const [landing] = await Promise.all([slow.waitForEvent('page'), img.click({ position: { x: 40, y: 30 } })]);
    expect(beacons).toHaveLength(1);
    await new Promise((r) => setTimeout(r, 300));
    release();
    // The tab opened with the click and goes to the landing once the beacon is answered.
    await landing.waitForURL(/\/landing\?c=/);
    expect(await landing.evaluate(() => (globalThis as unknown as { opener: unknown }).opener)).toBeNull();
    const clickId = /[?&]c=([0-9a-f-]{36})$/.exec(landing.url())?.[1] ?? '';
    expect(clickId).not.toBe('');
    const click = (await events()).find((e) => e.type === 'click' && e.click_id === clickId);
    // Without the hold the click would have overtaken its beacon and been refused as not_rendered.
    expect(click).toMatchObject({ invalid: false });
    const impression = (await events()).find((e) => e.type === 'impression' && e.bid_id === click?.bid_id);
    expect(impression?.ts).toBeLessThanOrEqual(click?.ts ?? 0);
    await slow.close();
  });

  it('renders native and in-page push ads; the push toast closes', async () => {
    const page = await context.newPage();
    await page.goto(`${hostBase}/?zone=${subids.native}`);
    const card = page.locator('[data-adnet-zone] .native');
    await card.waitFor({ state: 'visible', timeout: 10_000 });
    expect(await card.textContent()).toContain('Great offer');
    expect(await card.textContent()).toContain('Shop now');
    await page.goto(`${hostBase}/?zone=${subids.in_page_push}`);
    const toast = page.locator('[data-adnet-zone] .toast');
    await toast.waitFor({ state: 'visible', timeout: 10_000 });
    expect(
      await toast.evaluate(
        (e) =>
          (globalThis as unknown as { getComputedStyle(el: unknown): { position: string } }).getComputedStyle(e)
            .position,
      ),
    ).toBe('fixed');
    await page.locator('[data-adnet-zone] .toast button').click();
    expect(await page.locator('[data-adnet-zone] .toast').count()).toBe(0);
    await page.close();
  });

  it('shows the floating video in its corner after its delay, with a close button', async () => {
    const page = await context.newPage();
    const started = Date.now();
    await page.goto(`${hostBase}/?zone=${subids.video}`);
    const box = page.locator('[data-adnet="floating-video"]');
    await box.waitFor({ state: 'attached', timeout: 10_000 });
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
    expect(await box.getAttribute('class')).toBe('fv tl');
    expect(await page.locator('[data-adnet="floating-video"] video').getAttribute('src')).toBe(
      'https://cdn.example.com/v.mp4',
    );
    await page.screenshot({ path: `${process.env.TMPDIR ?? '/tmp'}/adnet-floating-video.png` });
    // The file cannot play here (the CDN is not reachable): the player reports the VAST Error URL, code 405.
    await eventually(async () => (await events()).some((e) => e.type === 'vast' && e.reason === 'error:405'), 10_000);
    // Playback as a player reports it (this file cannot play here): the Impression pixel at once, and
    // the VAST Viewable pixel once the video has been at least half in view for two seconds.
    const playedAt = Date.now();
    type Playable = { dispatchEvent(e: unknown): boolean };
    type Events = { Event: new (type: string) => unknown };
    await page
      .locator('[data-adnet="floating-video"] video')
      .evaluate((v) => (v as Playable).dispatchEvent(new (globalThis as unknown as Events).Event('playing')));
    const mine = async (type: string) => (await events()).filter((e) => e.type === type && e.zone_id === zoneIds.video);
    await eventually(async () => (await mine('impression')).length === 1, 5_000);
    await eventually(async () => (await mine('viewable')).length === 1, 10_000);
    expect(Date.now() - playedAt).toBeGreaterThanOrEqual(2_000);
    await page.locator('[data-adnet="floating-video"] button').click();
    expect(await box.count()).toBe(0);
    await page.close();
  });

  it("shows the publisher's fallback in a sandboxed frame when nothing fills the zone, and counts it", async () => {
    for (const [name, text, size] of [
      ['fallback_html', 'House ad', ['728', '90']],
      ['fallback_url', 'House page', ['320', '50']],
    ] as const) {
      const page = await context.newPage();
      await page.goto(`${hostBase}/?zone=${subids[name]}`);
      const frame = page.locator('[data-adnet-zone] iframe[data-adnet="fallback"]');
      await frame.waitFor({ state: 'attached', timeout: 10_000 });
      expect(await frame.getAttribute('sandbox')).toBe('allow-scripts allow-popups allow-popups-to-escape-sandbox');
      expect([await frame.getAttribute('width'), await frame.getAttribute('height')]).toEqual(size);
      const house = page.frameLocator('[data-adnet-zone] iframe[data-adnet="fallback"]').locator('#house');
      await house.waitFor({ state: 'visible', timeout: 10_000 });
      expect(await house.textContent()).toBe(text);
      // Its script ran, in an opaque origin: neither the host page nor storage is within its reach.
      await eventually(async () => (await house.getAttribute('data-ran')) === '1');
      expect([await house.getAttribute('data-isolated'), await house.getAttribute('data-no-storage')]).toEqual([
        '1',
        '1',
      ]);
      expect(
        await page.evaluate(() => (globalThis as unknown as { document: { title: string } }).document.title),
      ).not.toBe('reached');
      await eventually(async () =>
        (await events()).some(
          (e) => e.type === 'fallback' && e.zone_id === zoneIds[name] && e.reason === 'no_candidates',
        ),
      );
      await page.close();
    }
  });

  it("shows nothing when the zone's tag is copied onto another site's page", async () => {
    const page = await context.newPage();
    const elsewhere = hostBase.replace(/www\.[^:]+/, 'ticket-farm.test');
    const asked = page.waitForResponse((r) => r.url().includes('/imp?'));
    await page.goto(`${elsewhere}/?zone=${subids.banner}`);
    expect((await asked).status()).toBe(204);
    expect(await page.locator('[data-adnet-zone] img').count()).toBe(0);
    await eventually(async () => (await events()).some((e) => e.type === 'nobid' && e.reason === 'foreign_origin'));
    await page.close();
  });

  it("serves VAST that the players' VAST client parses", async () => {
    const page = await context.newPage();
    await page.goto(`${hostBase}/?zone=none`);
    const parsed = await page.evaluate<Record<string, unknown>>(`(async () => {
      const { VASTParser } = await import('${hostBase}/vast-client.js');
      const xml = await (await fetch('${engine.base}/vast/${subids.video}.xml')).text();
      const res = await new VASTParser().parseVAST(new DOMParser().parseFromString(xml, 'text/xml'));
      const ad = res.ads[0];
      const linear = ad.creatives.find((c) => c.type === 'linear');
      return { version: res.version, ads: res.ads.length, media: linear.mediaFiles[0].fileURL, impressions: ad.impressionURLTemplates.length,
        tracking: Object.keys(linear.trackingEvents).sort(), click: linear.videoClickThroughURLTemplate.url, errors: ad.errorURLTemplates.length };
    })()`);
    expect(parsed).toMatchObject({
      version: '4.0',
      ads: 1,
      media: 'https://cdn.example.com/v.mp4',
      impressions: 1,
      errors: 1,
    });
    expect(parsed.tracking).toEqual(['complete', 'firstQuartile', 'midpoint', 'start', 'thirdQuartile']);
    expect(String(parsed.click)).toContain('/c/');
    await page.close();
  });

  it('names the browser by one first-party id it keeps on the site, for frequency caps', async () => {
    const page = await context.newPage();
    const ids: string[] = [];
    page.on('request', (r) => {
      if (r.url().includes('/imp?')) ids.push(new URL(r.url()).searchParams.get('u') ?? '');
    });
    for (let load = 0; load < 2; load++) {
      const served = page.waitForResponse((r) => r.url().includes('/imp?'));
      await page.goto(`${hostBase}/?zone=${subids.native}`);
      await served;
    }
    expect(ids).toHaveLength(2);
    expect(ids[0]).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(ids[1]).toBe(ids[0]);
    expect(
      await page.evaluate(() =>
        (globalThis as unknown as { localStorage: { getItem(k: string): string | null } }).localStorage.getItem(
          'adnet:uid',
        ),
      ),
    ).toBe(ids[0]);
    // Another browser (its own storage) is another user.
    const other = await (await desktopContext(browser)).newPage();
    const asked = other.waitForRequest((r) => r.url().includes('/imp?'));
    await other.goto(`${hostBase}/?zone=${subids.native}`);
    expect(new URL((await asked).url()).searchParams.get('u')).not.toBe(ids[0]);
    await other.context().close();
    await page.close();
  });
});
