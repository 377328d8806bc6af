import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '@adnet/test-support/admin';
import { eventually, startEngine } from '@adnet/test-support/engine';
import type { TestEngine } from '@adnet/test-support/engine';
import { AXE } from './support/axe.ts';
import { desktopBrowser, startPublisherPage, stopAll } from './support/publisher-page.ts';
import type { PublisherPage } from './support/publisher-page.ts';

// Every ad the widget renders carries its zone's label (the publisher's wording) and an "About this ad" link, on a
// publisher's page in a real Chromium, and passes axe-core.

const fx = useTestApp();
let engine: TestEngine;
let browser: Browser;
let context: BrowserContext;
let hostPage: PublisherPage;
let hostBase = '';
let siteDomain = '';
const subids: Record<string, string> = {};

beforeAll(async () => {
  hostPage = await startPublisherPage(fx.app, (url, res) => {
    const zone = url.searchParams.get('zone') ?? '';
    res.end(
      `<!doctype html><html lang="en"><head><title>Host page</title></head><body><main><h1>Host page</h1><p>Article text.</p><script src="${engine.base}/w/${zone}.js"></script></main></body></html>`,
    );
  });
  const { world, site, adv } = hostPage;
  siteDomain = site.domain;
  hostBase = hostPage.base;
  await world.campaign(adv, { format: 'banner', bid_usd: 2 });
  await world.campaign(adv, { format: 'native', bid_usd: 2 }, { cta_text: 'Shop now' });
  await world.campaign(adv, { format: 'floating_video', bid_usd: 4 });
  for (const [name, fields] of Object.entries({
    banner: { format: 'banner', banner_width: 300, banner_height: 250 },
    native: { format: 'native', ad_label: 'Sponsored' },
    video: { format: 'floating_video', fv_corner: 'br', fv_delay_sec: 0, fv_freq_cap_hours: 0, ad_label: 'Werbung' },
  })) {
    subids[name] = (await world.zone({ name, ...fields }, site)).subid;
  }
  engine = await startEngine(fx.redis.url);
  await eventually(() => engine.engine.mirror.index?.candidateCount === 3);
  await new Promise((r) => setTimeout(r, 300));
  ({ browser, context } = await desktopBrowser());
}, 60_000);
afterAll(() => stopAll(browser, hostPage, engine));

/** axe-core's WCAG 2.1 A and AA rules over the ad (its shadow root included): the violations' rule ids. */
async function axeViolations(page: Page): Promise<string[]> {
  await page.addScriptTag({ content: AXE });
  return page.evaluate<string[]>(
    `axe.run({ include: [['[data-adnet-zone]']] }, { runOnly: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'], resultTypes: ['violations'] })
      .then((r) => r.violations.map((v) => v.id + ': ' + v.nodes.map((n) => n.html).join(' | ')))`,
  );
}

describe('the ad label', () => {
  for (const [zone, wording, ad] of [
    ['native', 'Sponsored', '.native'],
    ['banner', 'Ad', 'img'],
  ] as const) {
    it(`shows on a ${zone} ad in the publisher's wording, with an About this ad link, and axe finds nothing`, async () => {
      const page = await context.newPage();
      await page.goto(`${hostBase}/?zone=${subids[zone]}`);
      await page.locator(`[data-adnet-zone] ${ad}`).first().waitFor({ state: 'visible', timeout: 10_000 });
      const label = page.locator('[data-adnet-zone] [data-adnet="label"]');
      expect(await label.isVisible()).toBe(true);
      expect(await label.textContent()).toBe(`${wording} · About this ad`);
      const about = page.getByRole('link', { name: 'About this ad' });
      expect(await about.getAttribute('target')).toBe('_blank');
      expect(await about.getAttribute('rel')).toBe('noopener');
      const href = (await about.getAttribute('href')) ?? '';
      expect(href).toMatch(new RegExp(`^${engine.base}/about-ad/[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+$`));
      // The page it opens says who showed the ad, and where.
      const [tab] = await Promise.all([context.waitForEvent('page'), about.click()]);
      await tab.waitForLoadState();
      expect(await tab.locator('h1').textContent()).toBe('About this ad');
      expect(await tab.locator('main').textContent()).toContain(siteDomain);
      await tab.close();
      expect(await axeViolations(page)).toEqual([]);
      await page.close();
    });
  }

  it('shows on a floating video too, its About page that of the ad the player counts', async () => {
    const page = await context.newPage();
    await page.goto(`${hostBase}/?zone=${subids.video}`);
    const label = page.locator('[data-adnet-zone] .fv [data-adnet="label"]');
    await label.waitFor({ state: 'visible', timeout: 10_000 });
    expect(await label.textContent()).toBe('Werbung · About this ad');
    const href = (await label.getByRole('link', { name: 'About this ad' }).getAttribute('href')) ?? '';
    const about = await fetch(href);
    expect(about.status).toBe(200);
    expect(await about.text()).toContain(siteDomain);
    await page.close();
  });
});
