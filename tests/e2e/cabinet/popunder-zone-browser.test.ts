import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from '@adnet/test-support/admin';
import type { Account } from '@adnet/test-support/admin';
import { eventually, streamedEvents } from '@adnet/test-support/engine';
import { World } from '@adnet/test-support/world';
import { screenshot, startProduct, useSession } from './product.ts';
import type { Product } from './product.ts';

// The popunder zone form and its live preview in the publisher's cabinet (issue 39 item 5).
let p: Product;
let pub: Account;
let page: Page;
let campaignId = 0;
let landingBase = '';

beforeAll(async () => {
  p = await startProduct();
  const world = await World.create(p.app);
  const site = await world.site();
  pub = site.publisher;
  // The advertiser's landing, on the test's web server.
  landingBase = p.site.base.replace('127.0.0.1', 'shop.test');
  p.site.html.set('/landing', '<h1>Landing</h1>');
  const adv = await world.advertiser(100_000);
  campaignId = (
    await world.campaign(
      adv,
      { format: 'popunder', bid_usd: 30 },
      { landing_url: `${landingBase}/landing?c={click_id}` },
    )
  ).campaign.id;
  const context = await p.newContext();
  await useSession(context, p.base, pub.token);
  page = await context.newPage();
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

  it("opens the zone's pop on a click on the live preview's page, on the campaign's landing with its click id", async () => {
    const zones = await call<{ zones: { id: number; subid: string; name: string }[] }>(p.app, 'GET', '/api/pub/zones', {
      token: pub.token,
    });
    const zone = zones.body.zones.find((z) => z.name === 'Pops');
    await eventually(() => p.engine.engine.mirror.index?.zones.get(zone?.subid ?? '')?.serving === true);
    const card = page.locator('[data-zone="Pops"]');
    const answered: number[] = [];
    page.on('response', (r) => {
      if (r.url().includes(`/imp?z=${zone?.subid ?? ''}`)) answered.push(r.status());
    });
    await card.getByRole('button', { name: 'Live preview' }).click();
    const frame = card.locator('iframe[title="Live preview of Pops"]').contentFrame();
    await frame.getByText('Click anywhere on this page to open the pop.').waitFor();
    await eventually(() => answered.length > 0);
    expect(answered).toEqual([200]);
    const [pop] = await Promise.all([page.waitForEvent('popup'), frame.getByText('Click anywhere').click()]);
    await pop.waitForLoadState();
    expect(pop.url()).toMatch(new RegExp(`^${landingBase}/landing\\?c=[0-9a-f-]{36}$`));
    // A previewed pop is a real one: counted once, as the preview's own impression and click.
    await eventually(async () =>
      (await streamedEvents(p.app.svc.redis, p.engine)).some((e) => e.type === 'click' && e.campaign_id === campaignId),
    );
    const events = (await streamedEvents(p.app.svc.redis, p.engine)).filter((e) => e.campaign_id === campaignId);
    expect(events.map((e) => [e.type, e.zone_id, e.integration]).sort()).toEqual([
      ['click', zone?.id, 'popunder'],
      ['impression', zone?.id, 'popunder'],
    ]);
  }, 60_000);
});
