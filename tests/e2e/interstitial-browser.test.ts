import { desktopContext, launchChromium } from '@adnet/test-support/browser';
import { call, useTestApp } from '@adnet/test-support/admin';
import { eventually, startEngine, streamedEvents } from '@adnet/test-support/engine';
import type { TestEngine } from '@adnet/test-support/engine';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AXE } from './support/axe.ts';
import { startPublisherPage, stopAll } from './support/publisher-page.ts';
import type { PublisherPage } from './support/publisher-page.ts';

// Interstitial zones in Chromium: the full-page overlay after the zone's delay or on a same-site navigation,
// its close control after the close delay, Escape, focus moved in, kept in and given back, the zone's cap,
// and one counted render per overlay shown.

const fx = useTestApp();
let engine: TestEngine;
let browser: Browser;
let hostPage: PublisherPage;
let hostBase = '';
const subids: Record<string, string> = {};
const zoneIds: Record<string, number> = {};
/** The publisher's other pages and the advertiser's landing page, by path. */
const PAGES: Record<string, string> = {
  '/next': '<h1 id="next">Next article</h1>',
  '/landing': '<h1>Landing</h1>',
};

beforeAll(async () => {
  // The publisher's article (a link to the next one, a jump within the page), with the zone's script.
  hostPage = await startPublisherPage(fx.app, ({ pathname, searchParams }, res) => {
    const page = PAGES[pathname];
    if (page) return void res.end(page);
    const zone = searchParams.get('zone') ?? '';
    res.end(
      `<!doctype html><html lang="en"><head><title>Article</title></head><body><h1>Host page</h1>
<input id="search" aria-label="Search"><a id="next-link" href="/next">Next article</a>
<a id="jump" href="#comments">Comments</a><p id="comments">Article text.</p>
<script src="${engine.base}/w/${zone}.js"></script></body></html>`,
    );
  });
  const { world, site, adv } = hostPage;
  hostBase = hostPage.base;
  await world.campaign(
    adv,
    { format: 'interstitial', bid_usd: 2 },
    { landing_url: `${hostBase}/landing?c={click_id}&f={format}` },
  );
  for (const [name, fields] of Object.entries({
    // Shows on its own after 1 s; closable 2 s later.
    timed: { interstitial_delay_sec: 1, interstitial_close_after_sec: 2, interstitial_freq_cap_hours: 24 },
    // Shows only on a navigation (a minute is longer than the test); closable at once.
    onNavigation: { interstitial_delay_sec: 60, interstitial_close_after_sec: 0 },
  })) {
    const z = await call<{ id: number; subid: string; interstitial_freq_cap_hours: number }>(
      fx.app,
      'POST',
      '/api/pub/zones',
      { token: site.publisher.token, json: { site_id: site.id, name, format: 'interstitial', ...fields } },
    );
    expect(z.status).toBe(201);
    subids[name] = z.body.subid;
    zoneIds[name] = z.body.id;
  }
  engine = await startEngine(fx.redis.url);
  await eventually(
    () =>
      engine.engine.mirror.index?.zones.get(subids.onNavigation ?? '')?.serving === true &&
      engine.engine.mirror.index.candidateCount === 1,
  );
  browser = await launchChromium();
}, 60_000);
afterAll(() => stopAll(browser, hostPage, engine));

const impressionsOf = async (zone: string) =>
  (await streamedEvents(fx.app.svc.redis, engine)).filter(
    (e) => e.type === 'impression' && e.zone_id === zoneIds[zone],
  );
/** The element focused inside the widget's shadow root (its role), or the page's own focused element's id. */
const focused = (page: Page) =>
  page.evaluate(() => {
    const doc = (globalThis as unknown as { document: { activeElement: { id: string; shadowRoot: unknown } | null } })
      .document;
    const root = doc.activeElement?.shadowRoot as {
      activeElement: { getAttribute(n: string): string | null; tagName: string } | null;
    } | null;
    const inner = root?.activeElement;
    return inner ? `${inner.tagName.toLowerCase()}:${inner.getAttribute('role') ?? ''}` : (doc.activeElement?.id ?? '');
  });

/** The page's own scrolling, as the overlay sets it while it is up. */
const pageOverflow = (page: Page) => page.evaluate<string>('document.documentElement.style.overflow');

describe('an interstitial zone in a real browser', () => {
  let context: BrowserContext;
  beforeAll(async () => {
    context = await desktopContext(browser);
  });
  afterAll(() => context.close());

  it('shows after its delay as a labelled modal dialog, closes only once its close control shows, gives focus back', async () => {
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(`${hostBase}/?zone=${subids.timed}`);
    await page.locator('#search').focus();
    const started = Date.now();
    const dialog = page.locator('[data-adnet="interstitial"] [role="dialog"]');
    await dialog.waitFor({ state: 'visible', timeout: 10_000 });
    expect(Date.now() - started).toBeGreaterThanOrEqual(500);
    expect(await dialog.getAttribute('aria-modal')).toBe('true');
    // Labelled by its heading, in the same shadow tree.
    const label = await dialog.getAttribute('aria-labelledby');
    expect(await page.locator(`[data-adnet="interstitial"] #${label ?? 'none'}`).textContent()).toBe('Advertisement');
    expect(await dialog.locator('img').getAttribute('width')).toBe('320');
    // Focus moved into the dialog; Tab stays inside it.
    expect(await focused(page)).toBe('div:dialog');
    await page.keyboard.press('Tab');
    expect(await focused(page)).toBe('a:');
    await page.keyboard.press('Tab');
    expect(await focused(page)).toBe('a:');
    // No close control yet, and Escape does nothing.
    expect(await dialog.locator('button').count()).toBe(0);
    expect(await dialog.textContent()).toMatch(/Close in \d s/);
    await page.keyboard.press('Escape');
    expect(await dialog.isVisible()).toBe(true);
    const close = dialog.getByRole('button', { name: 'Close ad' });
    await close.waitFor({ state: 'visible', timeout: 5_000 });
    await page.keyboard.press('Tab');
    expect(await focused(page)).toBe('button:');
    // axe-core finds nothing serious in the page with the dialog up (it reads into open shadow roots).
    await page.addScriptTag({ content: AXE });
    const found = await page.evaluate<string[]>(
      `axe.run(document, { resultTypes: ['violations'] }).then((r) => r.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => v.id))`,
    );
    expect(found).toEqual([]);
    // The page behind does not scroll while the overlay is up.
    expect(await pageOverflow(page)).toBe('hidden');
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached', timeout: 2_000 });
    expect(await focused(page)).toBe('search');
    expect(await pageOverflow(page)).toBe('');
    // Its render counted once, as an interstitial.
    await eventually(async () => (await impressionsOf('timed')).length === 1);
    expect((await impressionsOf('timed'))[0]).toMatchObject({ format: 'interstitial', integration: 'widget' });
    expect(errors).toEqual([]);
    await page.close();
  });

  it('is not shown again within its cap: the widget does not even ask for an ad', async () => {
    const page = await context.newPage();
    const asked: string[] = [];
    page.on('request', (r) => {
      if (r.url().includes('/imp?')) asked.push(r.url());
    });
    await page.goto(`${hostBase}/?zone=${subids.timed}`);
    await page.waitForTimeout(2_000);
    expect(await page.locator('[data-adnet="interstitial"]').count()).toBe(0);
    expect(asked).toEqual([]);
    await page.close();
    expect(await impressionsOf('timed')).toHaveLength(1);
  });
});

describe('an interstitial shown on a same-site navigation', () => {
  it('holds the followed link, continues to it once closed with the button, and a click lands with {format}', async () => {
    const context = await desktopContext(browser);
    const page = await context.newPage();
    // The widget arms the overlay only with an ad in hand: wait for it.
    const answered = page.waitForResponse((r) => r.url().includes('/imp?'), { timeout: 10_000 });
    await page.goto(`${hostBase}/?zone=${subids.onNavigation}`);
    expect((await answered).status()).toBe(200);
    await page.waitForTimeout(300);
    expect(await page.locator('[data-adnet="interstitial"]').count()).toBe(0);
    // A jump within the page is no navigation.
    await page.locator('#jump').click();
    expect(await page.locator('[data-adnet="interstitial"]').count()).toBe(0);
    await page.locator('#next-link').click();
    const dialog = page.locator('[data-adnet="interstitial"] [role="dialog"]');
    await dialog.waitFor({ state: 'visible', timeout: 5_000 });
    expect(new URL(page.url()).pathname).toBe('/');
    await page.waitForTimeout(600); // a person looks before clicking
    const [landing] = await Promise.all([context.waitForEvent('page'), dialog.locator('a img').click()]);
    await landing.waitForURL(/\/landing\?/);
    expect(landing.url()).toMatch(/\/landing\?c=[0-9a-f-]{36}&f=interstitial$/);
    await landing.close();
    // Close delay 0: the close control is there from the start.
    await Promise.all([page.waitForURL(`${hostBase}/next`), dialog.getByRole('button', { name: 'Close ad' }).click()]);
    expect(await page.locator('#next').textContent()).toBe('Next article');
    await eventually(async () => (await impressionsOf('onNavigation')).length === 1);
    const clicks = (await streamedEvents(fx.app.svc.redis, engine)).filter(
      (e) => e.type === 'click' && e.zone_id === zoneIds.onNavigation,
    );
    expect(clicks).toHaveLength(1);
    expect(clicks[0]).toMatchObject({ invalid: false, format: 'interstitial' });
    await context.close();
  });
});
