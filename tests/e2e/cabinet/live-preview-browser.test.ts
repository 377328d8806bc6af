import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { budgetDay } from '@adnet/schemas/budget-day';
import { NO_BID_WORDS } from '@adnet/schemas/no-bid-words';
import { balanceKey, campaignPoolKey } from '@adnet/schemas/redis-keys';
import { call } from '@adnet/test-support/admin';
import type { Account } from '@adnet/test-support/admin';
import { eventually, streamedEvents } from '@adnet/test-support/engine';
import { World } from '@adnet/test-support/world';
import { screenshot, sessionPage, startProduct } from './product.ts';
import type { Product } from './product.ts';

// The zone's live preview in the publisher's cabinet (issue 40, item 6): the ad shows, labelled, and nothing is
// counted or charged; a zone nothing fills says why inside the frame. The zone form's ad label.
let p: Product;
let pub: Account;
let adv: Account;
let campaignId = 0;
let siteId = 0;
let page: Page;

beforeAll(async () => {
  p = await startProduct();
  const world = await World.create(p.app);
  adv = await world.advertiser(100_000);
  campaignId = (await world.campaign(adv, { format: 'banner', bid_usd: 2 })).campaign.id;
  const site = await world.site();
  pub = site.publisher;
  siteId = site.id;
  for (const [name, fields] of Object.entries({
    'Top banner': { format: 'banner', banner_width: 300, banner_height: 250, ad_label: 'Sponsored' },
    // No campaign has this size.
    Leaderboard: { format: 'banner', banner_width: 728, banner_height: 90 },
  }))
    await call(p.app, 'POST', '/api/pub/zones', { token: pub.token, json: { site_id: site.id, name, ...fields } });
  await eventually(() => p.engine.engine.mirror.index?.candidateCount === 1);
  await new Promise((r) => setTimeout(r, 300)); // first budget slices
  page = await sessionPage(p, pub.token);
}, 90_000);
afterAll(async () => {
  await p?.stop();
});

/** The campaign's spend and the advertiser's balance in Redis, and every event the engine wrote. */
async function charged(): Promise<unknown> {
  const r = p.app.svc.redis;
  return {
    pool: await r.hget(campaignPoolKey(campaignId, budgetDay(Date.now())), 'spent'),
    balance: await r.get(balanceKey(adv.id)),
    events: (await streamedEvents(r, p.engine)).length,
  };
}

describe('the live preview', () => {
  it("shows the zone's ad with its label, and counts and charges nothing", async () => {
    const before = await charged();
    await page.goto(`${p.base}/cabinet/zones`);
    const card = page.locator('[data-zone="Top banner"]');
    await card.getByText('Every ad is labelled “Sponsored”.').waitFor();
    await card.getByRole('button', { name: 'Live preview of Top banner' }).click();
    const frame = page.frameLocator('iframe[title="Live preview of Top banner"]');
    await frame.locator('[data-adnet-zone] img').waitFor({ state: 'visible', timeout: 20_000 });
    expect(await frame.locator('[data-adnet-zone] [data-adnet="label"]').textContent()).toBe(
      'Sponsored · About this ad',
    );
    // Its link is the landing page itself: a click on it counts nothing either.
    expect(await frame.locator('[data-adnet-zone] a[data-adnet="ad"]').getAttribute('href')).toBe(
      'https://shop.example.com/p?c=preview',
    );
    await screenshot(page, 'zone-live-preview', ['Top banner', 'Sponsored']);
    await new Promise((r) => setTimeout(r, 500)); // a flush of spend and events, were there any
    expect(await charged()).toEqual(before);
  }, 60_000);

  it('says why nothing fills, inside the frame', async () => {
    await page
      .locator('[data-zone="Leaderboard"]')
      .getByRole('button', { name: 'Live preview of Leaderboard' })
      .click();
    const frame = page.frameLocator('iframe[title="Live preview of Leaderboard"]');
    await frame.getByText(NO_BID_WORDS.no_candidates).waitFor({ timeout: 20_000 });
  }, 60_000);
});

describe('the zone form', () => {
  it('asks for the ad label, and refuses a blank one beside the field', async () => {
    const f = page.getByRole('form', { name: 'Create zone' });
    await f.getByLabel('Site').selectOption(String(siteId));
    await f.getByLabel('Name', { exact: true }).fill('Sidebar');
    await f.getByLabel('Format').selectOption('native');
    await f.getByLabel('Ad label').fill('   ');
    await f.getByRole('button', { name: 'Create zone' }).click();
    await f
      .locator('[data-field="ad_label"] .field-error')
      .getByText(/must not be empty/)
      .waitFor();
    await f.getByLabel('Ad label').fill('Anzeige');
    await f.getByRole('button', { name: 'Create zone' }).click();
    await page.locator('[data-zone="Sidebar"]').getByText('Every ad is labelled “Anzeige”.').waitFor();
    // A player's video and a pop are no ads on the page: no label to ask for.
    for (const format of ['video', 'popunder']) {
      await f.getByLabel('Format').selectOption(format);
      expect(await f.getByLabel('Ad label').isVisible()).toBe(false);
    }
  });
});
