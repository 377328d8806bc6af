import { screenshot, signedIn, startProduct } from './product.ts';
import type { Product } from './product.ts';
import { account, call } from '@adnet/test-support/admin';
import type { Account } from '@adnet/test-support/admin';
import type { EngineEvent } from '@adnet/schemas/events';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// Interstitials in the cabinet (issue 39 items 2 and 4): the zone form's interstitial fields with their help
// and the API's messages beside them, the campaign form's opt-in for banner and native campaigns, and the
// statistics page grouped by format, named in words. Events go through the engine's writer, the ingester and
// ClickHouse, as the engine's own would.
let p: Product;
let publisher: Account;
let advertiser: Account;
let siteId = 0;

beforeAll(async () => {
  p = await startProduct();
  publisher = await account(p.app, 'publisher');
  advertiser = await account(p.app, 'advertiser');
  const site = await call<{ id: number }>(p.app, 'POST', '/api/pub/sites', {
    token: publisher.token,
    json: { domain: 'full-page.test', category: 'news', language: 'en', traffic_estimate_daily: 1000 },
  });
  siteId = site.body.id;
  const now = Date.now();
  const impression = (id: string, format: EngineEvent['format']): EngineEvent => ({
    id,
    type: 'impression',
    ts: now,
    engine: 'e',
    publisher_id: publisher.id,
    site_id: siteId,
    zone_id: 1,
    campaign_id: 1,
    creative_id: 1,
    advertiser_id: advertiser.id,
    bid_id: id,
    charge_nano: 10_000_000,
    integration: 'widget',
    format,
  });
  for (const e of [impression('i1', 'interstitial'), impression('i2', 'interstitial'), impression('d1', 'direct_link')])
    p.engine.engine.events.push(e);
  await p.ingest();
}, 90_000);
afterAll(async () => {
  await p?.stop();
});

describe('interstitials in the cabinet', () => {
  it("creates an interstitial zone with its own fields, help beside them, and the API's message on a bad value", async () => {
    const page = await signedIn(p, publisher, /\/cabinet\/overview$/);
    await page.goto(`${p.base}/cabinet/zones`);
    const f = page.getByRole('form', { name: 'Create zone' });
    await f.getByLabel('Name').fill('Between pages');
    await f.getByLabel('Format').selectOption('native');
    expect(await f.getByLabel('Close button after (seconds)').isVisible()).toBe(false);
    await f.getByLabel('Format').selectOption('interstitial');
    const delay = f.getByLabel('Show it after (seconds on the page)');
    expect(await delay.isVisible()).toBe(true);
    await f.getByText(/or sooner when the visitor follows a link to another page of your site/).waitFor();
    await delay.fill('90');
    await f.getByLabel('Close button after (seconds)').fill('5');
    await f.getByRole('button', { name: 'Create zone' }).click();
    await f.locator('[data-field="interstitial_delay_sec"] .field-error').getByText('must be at most 60').waitFor();
    await delay.fill('8');
    await f.getByRole('button', { name: 'Create zone' }).click();
    await page.locator('[data-zone="Between pages"]').waitFor();
    const zones = await call<{ zones: Record<string, unknown>[] }>(p.app, 'GET', '/api/pub/zones', {
      token: publisher.token,
    });
    expect(zones.body.zones.find((z) => z.name === 'Between pages')).toMatchObject({
      format: 'interstitial',
      interstitial_delay_sec: 8,
      interstitial_close_after_sec: 5,
      interstitial_freq_cap_hours: 24,
    });
  });

  it("offers banner and native campaigns the interstitial opt-in on the builder's basics, and no other format", async () => {
    const adv = await signedIn(p, advertiser, /\/cabinet\/overview$/);
    await adv.goto(`${p.base}/cabinet/campaigns/new`);
    const f = adv.getByRole('form', { name: 'New campaign' });
    const optIn = f.getByLabel('Also show my ads full-page in interstitial zones');
    await f.getByLabel('Name', { exact: true }).fill('Full page too');
    await f.getByLabel('Format', { exact: true }).selectOption('video');
    expect(await optIn.isVisible()).toBe(false);
    await f.getByLabel('Format', { exact: true }).selectOption('banner');
    expect(await optIn.isVisible()).toBe(true);
    await f.getByLabel('Vertical').selectOption('ecommerce');
    await optIn.check();
    await f.getByRole('button', { name: '3. Bid, budget and goal' }).click();
    await f.getByLabel(/^Bid \(USD/).fill('2');
    await f.getByLabel('Daily budget (USD)').fill('20');
    await f.getByRole('button', { name: '6. Summary' }).click();
    await f.locator('.summary').getByText('Interstitial zones: yes, full-page too').waitFor();
    await f.getByRole('button', { name: 'Launch campaign' }).click();
    await adv.waitForURL(/\/cabinet\/campaigns\/\d+$/);
    const id = Number(/(\d+)$/.exec(adv.url())?.[1]);
    const read = async () =>
      (await call<{ interstitial: boolean }>(p.app, 'GET', `/api/adv/campaigns/${id}`, { token: advertiser.token }))
        .body.interstitial;
    expect(await read()).toBe(true);
    // Unchecked when editing: saved as no.
    await adv.goto(`${p.base}/cabinet/campaigns/${id}/edit`);
    const edit = adv.getByRole('form', { name: 'Edit campaign' });
    const box = edit.getByLabel('Also show my ads full-page in interstitial zones');
    expect(await box.isChecked()).toBe(true);
    await box.uncheck();
    await edit.getByRole('button', { name: '6. Summary' }).click();
    await edit.locator('.summary').getByText('Interstitial zones: no').waitFor();
    await edit.getByRole('button', { name: 'Save changes' }).click();
    await adv.getByText('Campaign saved').waitFor();
    expect(await read()).toBe(false);
  });

  it('groups the statistics by format, named in words', async () => {
    const adv = await signedIn(p, advertiser, /\/cabinet\/overview$/);
    await adv.getByRole('link', { name: 'Statistics' }).click();
    await adv.getByText(/^Breakdown, /).waitFor();
    const form = adv.getByRole('form', { name: 'Statistics query' });
    for (const box of await form.locator('input[name="group_by"]').all())
      await box.setChecked((await box.getAttribute('value')) === 'format');
    await form.getByRole('button', { name: 'Show' }).click();
    const row = adv.getByRole('row', { name: /^Interstitial/ });
    await row.waitFor();
    expect(await row.getByRole('cell').allTextContents()).toContain('2');
    await adv.getByRole('row', { name: /^Direct link/ }).waitFor();
    await screenshot(adv, 'stats-by-format', ['Interstitial', 'Direct link']);
  });
});
