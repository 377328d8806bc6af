import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from '@adnet/test-support/admin';
import type { Account } from '@adnet/test-support/admin';
import { eventually, streamedEvents } from '@adnet/test-support/engine';
import { World } from '@adnet/test-support/world';
import { screenshot, sessionPage, startProduct } from './product.ts';
import type { Product } from './product.ts';

// The popunder zone form and its live preview in the publisher's cabinet (issue 39 item 5).
let p: Product;
let pub: Account;
let page: Page;
let campaignId = 0;
let landingBase = '';
let adv: Account;

beforeAll(async () => {
  p = await startProduct();
  const world = await World.create(p.app);
  const site = await world.site();
  pub = site.publisher;
  // The advertiser's landing, on the test's web server.
  landingBase = p.site.base.replace('127.0.0.1', 'shop.test');
  p.site.html.set('/landing', '<h1>Landing</h1>');
  adv = await world.advertiser(100_000);
  campaignId = (
    await world.campaign(
      adv,
      { format: 'popunder', bid_usd: 30 },
      { landing_url: `${landingBase}/landing?c={click_id}` },
    )
  ).campaign.id;
  page = await sessionPage(p, pub.token);
}, 90_000);
afterAll(async () => {
  await p?.stop();
});

describe('a popunder zone in the cabinet', () => {
  it('asks for its own fields, each with its help, and keeps what the publisher chose', async () => {
    await page.goto(`${p.base}/cabinet/zones`);
    const f = page.getByRole('form', { name: 'Create zone' });
    await f.getByLabel('Name', { exact: true }).fill('Pops');
    expect(await f.getByLabel('Open the pop on').isVisible()).toBe(false);
    await f.getByLabel('Format').selectOption('popunder');
    expect(await f.getByLabel('Banner size').isVisible()).toBe(false);
    for (const [field, help] of [
      ['pop_freq_cap_hours', 'From 1 to 168.'],
      ['pop_trigger', "only the visitor's first click on a page can open it"],
      ['pop_new_tab', 'you are paid for opened pops only'],
    ] as const)
      await f.locator(`[data-field="${field}"] small`).getByText(help, { exact: false }).waitFor();
    await f.getByLabel('One pop per visitor every (hours)').fill('169');
    await f.getByRole('button', { name: 'Create zone' }).click();
    await f.locator('[data-field="pop_freq_cap_hours"] .field-error').getByText('must be at most 168').waitFor();
    await f.getByLabel('One pop per visitor every (hours)').fill('2');
    await f.getByLabel('Open the pop on').selectOption('any_click');
    await f.getByLabel('Open it as').selectOption('window behind');
    await screenshot(page, 'popunder-zone-form', ['One pop per visitor every (hours)', 'From 1 to 168.']);
    await f.getByRole('button', { name: 'Create zone' }).click();
    const card = page.locator('[data-zone="Pops"]');
    await card
      .getByText('one pop per visitor every 2 h, on the next click until one opens, as a window behind', {
        exact: false,
      })
      .waitFor();
    const zones = await call<{ zones: Record<string, unknown>[] }>(p.app, 'GET', '/api/pub/zones', {
      token: pub.token,
    });
    expect(zones.body.zones.find((z) => z.name === 'Pops')).toMatchObject({
      format: 'popunder',
      pop_freq_cap_hours: 2,
      pop_trigger: 'any_click',
      pop_new_tab: false,
    });
  });

  it("opens the zone's pop on a click on the live preview's page, on the campaign's landing, and counts nothing", async () => {
    const zones = await call<{ zones: { id: number; subid: string; name: string }[] }>(p.app, 'GET', '/api/pub/zones', {
      token: pub.token,
    });
    const zone = zones.body.zones.find((z) => z.name === 'Pops');
    await eventually(() => p.engine.engine.mirror.index?.zones.get(zone?.subid ?? '')?.serving === true);
    const card = page.locator('[data-zone="Pops"]');
    const answered: string[] = [];
    const beacons: string[] = [];
    page.on('request', (r) => {
      if (r.url().includes('/b/')) beacons.push(r.url());
    });
    page.on('response', (r) => {
      if (r.url().includes(`/${zone?.subid ?? ''}`) && !r.url().includes('/w/'))
        answered.push(`${r.status()} ${r.url()}`);
    });
    await card.getByRole('button', { name: 'Live preview' }).click();
    const frame = card.locator('iframe[title="Live preview of Pops"]').contentFrame();
    await frame.getByText('Click anywhere on this page to open the pop.').waitFor();
    await eventually(() => answered.length > 0);
    // The preview asks /preview with its token, never /imp.
    expect(answered.map((a) => a.replace(/^(\d+) .*\/(preview|imp)\b.*$/, '$1 $2'))).toEqual(['200 preview']);
    const [pop] = await Promise.all([page.waitForEvent('popup'), frame.getByText('Click anywhere').click()]);
    await pop.waitForLoadState();
    // The landing itself, its click id a preview's: no click was counted to name.
    expect(pop.url()).toBe(`${landingBase}/landing?c=preview`);
    // Nothing counted, charged or capped: no beacon was fired, no event written, no spend.
    await new Promise((r) => setTimeout(r, 1_500));
    const events = (await streamedEvents(p.app.svc.redis, p.engine)).filter((e) => e.campaign_id === campaignId);
    expect(events.filter((e) => e.type !== 'nobid')).toEqual([]);
    const campaign = await call<{ total_spent_cents: number }>(p.app, 'GET', `/api/adv/campaigns/${campaignId}`, {
      token: adv.token,
    });
    expect(campaign.body.total_spent_cents).toBe(0);
    expect(beacons).toEqual([]);
  }, 60_000);
});
