import type { ClickHouseClient } from '@clickhouse/client';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runRulePass } from '@adnet/admin/rule-evaluator';
import type { Account } from '@adnet/test-support/admin';
import { eventually } from '@adnet/test-support/engine';
import { World } from '@adnet/test-support/world';
import { sessionPage, startProduct, useSession } from './product.ts';
import type { Product } from './product.ts';
import { AXE, DESKTOP_AND_PHONE } from '../support/axe.ts';

// A campaign's automated rules in a real browser: a rule added through the form (the API's message beside
// the field it names), read back in words, previewed, acted on by an evaluation pass, and undone from the
// log; the section passes axe-core and fits a phone.

let p: Product;
let adv: Account;
let page: Page;
let campaignId: number;
let zone: { id: number; subid: string };
const today = new Date().toISOString().slice(0, 10);

beforeAll(async () => {
  p = await startProduct();
  const world = await World.create(p.app);
  const site = await world.site();
  zone = await world.zone({ format: 'banner', banner_width: 300, banner_height: 250 }, site);
  adv = await world.advertiser(100_000);
  campaignId = (await world.campaign(adv, { name: 'Ruled' })).campaign.id;
  // What the ingester's view would have summed: $6 on the zone today, no conversion.
  await (p.app.svc.clickhouse as ClickHouseClient).insert({
    table: `${p.app.svc.config.stats.database}.stats_hourly`,
    format: 'JSONEachRow',
    values: [
      {
        hour: `${today} 00:00:00`,
        advertiser_id: adv.id,
        campaign_id: campaignId,
        creative_id: 1,
        publisher_id: site.publisher.id,
        site_id: site.id,
        zone_id: zone.id,
        country: 'de',
        device: 'desktop',
        impressions: 3000,
        clicks: 30,
        spent_nano: 6_000_000_000,
      },
    ],
  });
  page = await sessionPage(p, adv.token);
}, 90_000);
afterAll(async () => {
  await p?.stop();
});

const section = () => page.locator('#rules');

describe('automated rules in the cabinet', () => {
  it('adds a rule through the form, naming a bad field beside it, and reads it back in words', async () => {
    await page.goto(`${p.base}/cabinet/campaigns/${campaignId}`);
    await section().getByText('New rule', { exact: true }).click();
    const form = section().getByRole('form', { name: 'New rule' });
    await form.getByLabel('Name').fill('Burners');
    await form.locator('[name=scope]').selectOption('zone');
    await form.locator('[name=c0_metric]').selectOption('spend_usd');
    await form.locator('[name=c0_op]').selectOption('>');
    await form.locator('[name=c0_value]').fill('5');
    await form.locator('[name=c1_metric]').selectOption('conversions');
    await form.locator('[name=c1_op]').selectOption('<');
    await form.locator('[name=c1_value]').fill('1');
    await form.locator('[name=action]').selectOption('raise_bid');
    await form.getByRole('button', { name: 'Add rule' }).click();
    await form.getByText('is required for raise_bid (1-100)').waitFor();
    await form.locator('[name=action]').selectOption('exclude');
    await form.getByRole('button', { name: 'Add rule' }).click();
    await section()
      .getByText("If a zone's spend ($) > 5 and conversions < 1 over today, exclude the zone", { exact: true })
      .waitFor();
  });

  it('previews, then shows what a pass did in the log and undoes it', async () => {
    await section().getByRole('button', { name: 'Preview Burners' }).click();
    await section().getByText(`${today} to ${today}: 1 action(s) now`).waitFor();
    expect((await runRulePass(p.app.svc)).actions).toBe(1);
    await page.reload();
    const entry = section()
      .getByRole('row', { name: /Burners/ })
      .filter({ hasText: `zone ${zone.subid} excluded` });
    await entry.waitFor();
    await section()
      .getByRole('button', { name: `Undo exclude on ${zone.id}` })
      .click();
    await eventually(
      async () =>
        (await section()
          .getByText(/^undone /)
          .count()) === 1,
    );
  });

  it('passes axe-core at desktop and phone sizes and fits a phone', async () => {
    const problems: string[] = [];
    for (const viewport of DESKTOP_AND_PHONE) {
      const ctx = await p.browser.newContext({ bypassCSP: true, viewport });
      await useSession(ctx, p.base, adv.token);
      const tab = await ctx.newPage();
      await tab.goto(`${p.base}/cabinet/campaigns/${campaignId}`);
      await tab.locator('#rules').waitFor();
      await tab.locator('#rules').getByText('New rule', { exact: true }).click();
      await tab.addScriptTag({ content: AXE });
      const found = await tab.evaluate<{ id: string; impact: string; nodes: number }[]>(
        `axe.run(document.querySelector('#rules'), { resultTypes: ['violations'] }).then((r) => r.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.length })))`,
      );
      for (const f of found) problems.push(`${viewport.width}px: ${f.id} (${f.impact}, ${f.nodes} nodes)`);
      const wide = await tab.evaluate<number>('document.documentElement.scrollWidth');
      if (wide > viewport.width) problems.push(`${viewport.width}px: page is ${wide}px wide`);
      await ctx.close();
    }
    expect(problems).toEqual([]);
  }, 60_000);
});
