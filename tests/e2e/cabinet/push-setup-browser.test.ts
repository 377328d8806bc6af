import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { account, call } from '@adnet/test-support/admin';
import type { Account } from '@adnet/test-support/admin';
import { screenshot, sessionPage, startProduct } from './product.ts';
import type { Product } from './product.ts';

// The web push setup block of a push zone in the publisher's cabinet (issue 18, item 6).
let p: Product;
let pub: Account;
let page: Page;

beforeAll(async () => {
  p = await startProduct();
  pub = await account(p.app, 'publisher');
  const site = await call<{ id: number }>(p.app, 'POST', '/api/pub/sites', {
    token: pub.token,
    json: { domain: 'push-news.test', category: 'news', language: 'en', traffic_estimate_daily: 1000 },
  });
  await call(p.app, 'POST', '/api/pub/zones', {
    token: pub.token,
    json: { site_id: site.body.id, name: 'Subscribers', format: 'push' },
  });
  await call(p.app, 'POST', '/api/pub/zones', {
    token: pub.token,
    json: { site_id: site.body.id, name: 'Card', format: 'native' },
  });
  // Signed in as the cabinet's sign-in leaves a browser: the token in its HttpOnly cookie.
  page = await sessionPage(p, pub.token);
}, 90_000);
afterAll(async () => {
  await p?.stop();
});

describe('web push setup in the cabinet', () => {
  it('shows a push zone how to host the worker, with the download, and only on push zones', async () => {
    await page.goto(`${p.base}/cabinet/zones`);
    const card = page.locator('[data-zone="Subscribers"]');
    await card.getByText('Web push setup: asks on the first click').click();
    await card.getByText('https://push-news.test/adnet-sw.js').waitFor();
    const link = card.getByRole('link', { name: 'Download adnet-sw.js' });
    expect(await link.getAttribute('href')).toBe(`${p.base}/push/sw.js?download=1`);
    const worker = await fetch(`${p.base}/push/sw.js?download=1`);
    expect(worker.headers.get('content-disposition')).toBe('attachment; filename="adnet-sw.js"');
    expect(await page.locator('[data-zone="Card"] [data-push-setup]').count()).toBe(0);
  });

  it("saves when visitors are asked, with the API's message beside the field", async () => {
    const f = page.getByRole('form', { name: 'When Subscribers asks for permission' });
    await f.getByLabel('Ask visitors').selectOption('delay');
    await f.getByLabel('Seconds after the page loads').fill('900');
    await f.getByRole('button', { name: 'Save prompt' }).click();
    await f.locator('[data-field="push_prompt.delay_s"] .field-error').getByText('must be at most 600').waitFor();
    await f.getByLabel('Seconds after the page loads').fill('20');
    await f.getByRole('button', { name: 'Save prompt' }).click();
    await page.getByText('Web push setup: asks after some seconds (20 s)').waitFor();
    const zones = await call<{ zones: { name: string; push_prompt: unknown }[] }>(p.app, 'GET', '/api/pub/zones', {
      token: pub.token,
    });
    expect(zones.body.zones.find((z) => z.name === 'Subscribers')?.push_prompt).toEqual({ on: 'delay', delay_s: 20 });
    await page.getByText('Web push setup: asks after some seconds (20 s)').click();
    await screenshot(page, 'push-setup', ['Download adnet-sw.js', 'Upload it to the root of your site']);
  });

  it('asks a new push zone when to prompt, and only a push zone', async () => {
    const f = page.getByRole('form', { name: 'Create zone' });
    await f.getByLabel('Name').fill('On load');
    await f.getByLabel('Format').selectOption('native');
    expect(await f.getByLabel('Ask visitors for push permission').isVisible()).toBe(false);
    await f.getByLabel('Format').selectOption('push');
    expect(await f.getByLabel('Seconds after the page loads').isVisible()).toBe(false);
    await f.getByLabel('Ask visitors for push permission').selectOption('load');
    await f.getByRole('button', { name: 'Create zone' }).click();
    await page.locator('[data-zone="On load"]').getByText('Web push setup: asks as the page loads').waitFor();
  });
});
