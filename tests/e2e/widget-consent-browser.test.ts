import type { Browser, BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '@adnet/test-support/admin';
import { eventually, startEngine } from '@adnet/test-support/engine';
import type { TestEngine } from '@adnet/test-support/engine';
import { desktopBrowser, startPublisherPage, stopAll } from './support/publisher-page.ts';
import type { PublisherPage } from './support/publisher-page.ts';

// The widget asks the page's consent platform (IAB TCF v2, `__tcfapi`) before it asks for an ad, and passes its
// signal to /imp, where the engine reads it (no caps or audiences for a visitor without consent); in Chromium.

const fx = useTestApp();
let engine: TestEngine;
let browser: Browser;
let context: BrowserContext;
let hostPage: PublisherPage;
let subid = '';

/** A CMP stub as the page's own: answers getTCData with the given data, or never. */
const CMPS: Record<string, string> = {
  none: '',
  applies: `window.__tcfapi = (cmd, v, cb) => setTimeout(() => cb({ gdprApplies: true, tcString: 'CPtest.no-consent' }, true), 50);`,
  outside: `window.__tcfapi = (cmd, v, cb) => cb({ gdprApplies: false }, true);`,
  silent: `window.__tcfapi = () => undefined;`,
};

beforeAll(async () => {
  hostPage = await startPublisherPage(fx.app, (url, res) => {
    const cmp = CMPS[url.searchParams.get('cmp') ?? 'none'] ?? '';
    res.end(
      `<!doctype html><html lang="en"><head><title>Host</title>${cmp ? `<script>${cmp}</script>` : ''}</head><body><main><script src="${engine.base}/w/${subid}.js"></script></main></body></html>`,
    );
  });
  const { world, site, adv } = hostPage;
  await world.campaign(adv, { format: 'native', bid_usd: 2 });
  subid = (await world.zone({ format: 'native' }, site)).subid;
  engine = await startEngine(fx.redis.url);
  await eventually(() => engine.engine.mirror.index?.candidateCount === 1);
  await new Promise((r) => setTimeout(r, 300));
  ({ browser, context } = await desktopBrowser());
}, 60_000);
afterAll(() => stopAll(browser, hostPage, engine));

/** The page's ad request, and whether the ad was drawn. */
async function visit(cmp: string): Promise<{ query: URLSearchParams; shown: boolean }> {
  const page = await context.newPage();
  try {
    const asked = page.waitForRequest((r) => r.url().includes('/imp?'));
    await page.goto(`${hostPage.base}/?cmp=${cmp}`);
    const query = new URL((await asked).url()).searchParams;
    const shown = await page
      .locator('[data-adnet-zone] >> .native')
      .waitFor({ timeout: 5_000 })
      .then(() => true)
      .catch(() => false);
    return { query, shown };
  } finally {
    await page.close();
  }
}

describe("the widget and the page's consent platform", () => {
  it('passes the TC string where GDPR applies, nothing where the CMP says it does not or there is none', async () => {
    const applies = await visit('applies');
    expect([applies.query.get('gdpr'), applies.query.get('gdpr_consent'), applies.shown]).toEqual([
      '1',
      'CPtest.no-consent',
      true,
    ]);
    for (const cmp of ['outside', 'none']) {
      const v = await visit(cmp);
      expect([cmp, v.query.has('gdpr'), v.query.has('gdpr_consent'), v.shown]).toEqual([cmp, false, false, true]);
    }
  }, 60_000);

  it('asks without consent when the CMP does not answer, after waiting for it, and still shows the ad', async () => {
    const silent = await visit('silent');
    expect([silent.query.get('gdpr'), silent.query.has('gdpr_consent'), silent.shown]).toEqual(['1', false, true]);
  }, 60_000);
});
