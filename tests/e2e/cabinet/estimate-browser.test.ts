import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { xaddArgs } from '@adnet/schemas/wire/event-stream';
import { call } from '@adnet/test-support/admin';
import type { Account } from '@adnet/test-support/admin';
import { weekOfTraffic } from '@adnet/test-support/estimate-traffic';
import { World } from '@adnet/test-support/world';
import { screenshot, startProduct, useSession } from './product.ts';
import type { Product } from './product.ts';

// The traffic estimate beside the bid on the campaign form, in a real browser over a recorded week: it
// follows the targeting and the bid as they are typed, says why there is none for a budget the API
// refuses, and passes axe-core at desktop and phone sizes.

let p: Product;
let adv: Account;

beforeAll(async () => {
  p = await startProduct({ parts: ['ingester'] });
  const world = await World.create(p.app);
  const site = await world.site();
  const zone = await world.zone({ format: 'native' }, site);
  adv = await world.advertiser(10_000);
  const events = weekOfTraffic({ zones: [{ id: zone.id, siteId: site.id }], perHour: 20, now: Date.now() });
  for (let i = 0; i < events.length; i += 500)
    await p.app.svc.redis.xadd(...xaddArgs(events.slice(i, i + 500), 10_000_000));
  await p.ingest();
}, 120_000);
afterAll(async () => {
  await p.stop();
});

const requestsPerDay = async (body: Record<string, unknown>) =>
  (await call<{ requests_per_day: number }>(p.app, 'POST', '/api/adv/estimate', { token: adv.token, json: body })).body
    .requests_per_day;
const shown = (n: number) => `About ${Math.round(n).toLocaleString('en-US')} matching requests a day`;

async function newCampaignPage(viewport?: { width: number; height: number }, bypassCSP = false): Promise<Page> {
  const ctx = await p.browser.newContext({ viewport: viewport ?? { width: 1280, height: 900 }, bypassCSP });
  await useSession(ctx, p.base, adv.token);
  const page = await ctx.newPage();
  await page.goto(`${p.base}/cabinet/campaigns/new`);
  await page.locator('main h1').first().waitFor();
  return page;
}

describe('the estimate beside the bid', () => {
  it('follows the targeting and the bid as they are typed, and says why there is none', async () => {
    const page = await newCampaignPage();
    const f = page.getByRole('form', { name: 'New campaign' });
    const panel = page.getByRole('status', { name: 'Traffic estimate' });
    await f.getByLabel('Format', { exact: true }).selectOption('native');
    // The builder's third step holds the bid, the budget and the estimate beside them.
    await f.getByRole('button', { name: '3. Bid, budget and goal' }).click();
    await f.getByLabel(/^Bid \(USD/).fill('1');
    await f.getByLabel('Daily budget (USD)').fill('50');
    const all = await requestsPerDay({ format: 'native', bid_type: 'cpm', bid_usd: 1, daily_budget_usd: 50 });
    await panel.getByText(shown(all)).waitFor();
    expect(await panel.textContent()).toMatch(/recommended \$\d/);

    await f.getByRole('button', { name: '2. Audience and targeting' }).click();
    await f.getByRole('checkbox', { name: 'mobile' }).check();
    await f.getByRole('button', { name: '3. Bid, budget and goal' }).click();
    const mobile = await requestsPerDay({
      format: 'native',
      bid_type: 'cpm',
      bid_usd: 1,
      daily_budget_usd: 50,
      device_types: ['mobile'],
    });
    expect(mobile).toBeLessThan(all);
    await panel.getByText(shown(mobile)).waitFor();
    await screenshot(page, 'campaign-estimate', [shown(mobile)]);

    await f.getByLabel('Daily budget (USD)').fill('0.5');
    await panel.getByText('No estimate yet: daily_budget_usd: must be at least 1').waitFor();
    await page.context().close();
  }, 60_000);

  it('passes axe-core with the estimate shown, at desktop and phone sizes, nothing off-screen on a phone', async () => {
    const axe = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
    const problems: string[] = [];
    const desktop = { width: 1280, height: 900 };
    const phone = { width: 375, height: 740 };
    for (const viewport of [desktop, phone]) {
      // bypassCSP: the cabinet's CSP allows only its own scripts, and the checker is not one of them.
      const page = await newCampaignPage(viewport, true);
      await page
        .getByRole('form', { name: 'New campaign' })
        .getByLabel('Format', { exact: true })
        .selectOption('native');
      await page
        .getByRole('form', { name: 'New campaign' })
        .getByRole('button', { name: '3. Bid, budget and goal' })
        .click();
      await page
        .getByRole('form', { name: 'New campaign' })
        .getByLabel(/^Bid \(USD/)
        .fill('1');
      await page.getByRole('form', { name: 'New campaign' }).getByLabel('Daily budget (USD)').fill('50');
      await page.getByRole('status', { name: 'Traffic estimate' }).getByText('matching requests a day').waitFor();
      await page.addScriptTag({ content: axe });
      const found = await page.evaluate<{ id: string; impact: string }[]>(
        `axe.run(document, { resultTypes: ['violations'] }).then((r) => r.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => ({ id: v.id, impact: v.impact })))`,
      );
      for (const v of found) problems.push(`${viewport.width}px: ${v.id} (${v.impact})`);
      const wide = await page.evaluate<number>('document.documentElement.scrollWidth');
      if (wide > viewport.width) problems.push(`${viewport.width}px: page is ${wide}px wide`);
      await page.context().close();
    }
    expect(problems).toEqual([]);
  }, 60_000);
});
