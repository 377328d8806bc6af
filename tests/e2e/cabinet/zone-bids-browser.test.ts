import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cpaCountsKey, cpaSpendField } from '@adnet/schemas/target-cpa';
import type { Account } from '@adnet/test-support/admin';
import { World } from '@adnet/test-support/world';
import { screenshot, sessionPage, startProduct, useSession } from './product.ts';
import type { Product } from './product.ts';
import { AXE, DESKTOP_AND_PHONE } from '../support/axe.ts';

// A target-CPA campaign's zone bids on its page, in a real browser: the admin's controller (part `target-cpa`)
// excludes the zone that spent its test budget, the other keeps testing at the campaign's bid, and the table says so
// at desktop and phone widths. The spend is written where the engines add theirs (the campaign's counts in Redis).

let p: Product;
let adv: Account;
let page: Page;
let campaignId: number;
let domain = '';
const zones: { id: number; subid: string }[] = [];

beforeAll(async () => {
  p = await startProduct({ env: { TARGET_CPA_PASS_MS: '200' }, parts: ['ingester', 'video', 'target-cpa'] });
  const world = await World.create(p.app);
  const site = await world.site();
  domain = site.domain;
  for (let i = 0; i < 2; i++) zones.push(await world.zone({ format: 'native' }, site));
  adv = await world.advertiser(100_000);
  campaignId = (
    await world.campaign(adv, { name: 'Goal', format: 'native', bid_usd: 2, target_cpa_usd: 1, cpa_test_budget_usd: 3 })
  ).campaign.id;
  const spent = zones[0] as { id: number };
  const testing = zones[1] as { id: number };
  await p.app.svc.redis.hincrby(cpaCountsKey(campaignId), cpaSpendField(spent.id), 3_100_000_000);
  await p.app.svc.redis.hincrby(cpaCountsKey(campaignId), cpaSpendField(testing.id), 1_000_000_000);
  page = await sessionPage(p, adv.token);
}, 120_000);
afterAll(async () => {
  await p?.stop();
});

describe('zone bids in the cabinet', () => {
  it('lists each zone with its state, bid, spend and why', async () => {
    const spent = zones[0] as { id: number };
    const testing = zones[1] as { id: number };
    await page.goto(`${p.base}/cabinet/campaigns/${campaignId}`);
    const section = page.locator('#zone-bids');
    await section.getByText('Target $1.00 per conversion').waitFor();
    // The controller's pass runs every 200 ms: reload until it has excluded the zone.
    for (let i = 0; i < 50; i++) {
      if ((await section.getByRole('row').filter({ hasText: 'excluded' }).count()) === 1) break;
      await page.waitForTimeout(200);
      await page.reload();
    }
    const excluded = section
      .getByRole('row')
      .filter({ hasText: String(spent.id) })
      .first();
    expect(await excluded.textContent()).toContain('excluded');
    expect(await excluded.textContent()).toContain('$3.10');
    expect(await excluded.textContent()).toContain('without a conversion');
    const test = section.getByRole('row').filter({ hasText: 'testing' }).first();
    expect(await test.textContent()).toContain(String(testing.id));
    expect(await test.textContent()).toContain('$2.00 CPM');
    expect(await test.textContent()).toContain(domain);
    await screenshot(page, 'zone-bids', ['Zone bids', 'excluded', 'testing']);
    await page.setViewportSize({ width: 375, height: 800 });
    await page.reload();
    await section.getByText('without a conversion').first().waitFor();
    expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(375);
  });

  it('passes axe-core (no serious or critical violation) at 1280 and 375 px', async () => {
    for (const viewport of DESKTOP_AND_PHONE) {
      // The cabinet's CSP allows only its own scripts: this context lets the checker in.
      const ctx = await p.browser.newContext({ bypassCSP: true, viewport });
      await useSession(ctx, p.base, adv.token);
      const checked = await ctx.newPage();
      await checked.goto(`${p.base}/cabinet/campaigns/${campaignId}`);
      await checked.locator('#zone-bids').getByText('without a conversion').first().waitFor();
      await checked.addScriptTag({ content: AXE });
      const found = await checked.evaluate<string[]>(
        `axe.run(document, { resultTypes: ['violations'] }).then((r) => r.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => v.id))`,
      );
      expect(found).toEqual([]);
      await ctx.close();
    }
  });
});
