import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { account, call, validCampaign } from '@adnet/test-support/admin';
import type { Account } from '@adnet/test-support/admin';
import { sessionToken, signedIn, startProduct, useSession } from './product.ts';
import type { Product } from './product.ts';
import { AXE, DESKTOP_AND_PHONE } from '../support/axe.ts';

// The advertiser's audiences page in a real browser, over the product's real admin, engine and Redis.

let p: Product;
let adv: Account;
let page: Page;
let campaignId = 0;

beforeAll(async () => {
  p = await startProduct();
  adv = await account(p.app, 'advertiser');
  campaignId = (
    await call<{ id: number }>(p.app, 'POST', '/api/adv/campaigns', { token: adv.token, json: validCampaign })
  ).body.id;
  page = await signedIn(p, adv, /\/cabinet\/overview$/);
}, 90_000);
afterAll(async () => {
  await p?.stop();
});

describe('audiences in the cabinet', () => {
  it('creates a pixel audience with its snippet and a clicked audience of a campaign, refuses a bad one beside its field, deletes one', async () => {
    await page.getByRole('link', { name: 'Audiences' }).click();

    const form = page.getByRole('form', { name: 'New audience' });
    await form.getByLabel('Name').fill('Site visitors');
    await form.getByLabel('Who').selectOption('pixel');
    await form.getByRole('button', { name: 'Create audience' }).click();
    const snippet = page.getByLabel('Pixel of Site visitors');
    await snippet.waitFor();
    expect(await snippet.textContent()).toMatch(
      /^<img src="http[^"]+\/px\/[A-Za-z0-9_-]{22}\.gif" width="1" height="1"/,
    );

    // Clicked needs campaigns: the API's words beside the field.
    await form.getByLabel('Name').fill('Clickers');
    await form.getByLabel('Who').selectOption('clicked');
    await form.getByRole('button', { name: 'Create audience' }).click();
    await form
      .locator('[data-field="campaign_ids"] .field-error')
      .getByText(/must name at least one campaign/)
      .waitFor();
    await form.getByLabel('Campaigns (not for the pixel)', { exact: true }).fill('spring');
    await form.getByRole('checkbox', { name: `Spring promo (#${campaignId})` }).check();
    await form.getByRole('button', { name: 'Create audience' }).click();
    await page.getByRole('cell', { name: `Spring promo (#${campaignId})` }).waitFor();

    await page.getByRole('button', { name: 'Delete audience Clickers' }).click();
    await page.getByRole('cell', { name: `Spring promo (#${campaignId})` }).waitFor({ state: 'detached' });
    const left = await call<{ audiences: { name: string }[] }>(p.app, 'GET', '/api/adv/audiences', {
      token: adv.token,
    });
    expect(left.body.audiences.map((a) => a.name)).toEqual(['Site visitors']);
  }, 60_000);

  // Its own check, as the other pages' in cabinet-browser.test.ts (which runs near its time limit on a busy machine).
  it('passes axe-core at desktop and phone sizes, with nothing off-screen on a phone', async () => {
    for (const viewport of DESKTOP_AND_PHONE) {
      const ctx = await p.browser.newContext({ bypassCSP: true, viewport });
      await useSession(ctx, p.base, await sessionToken(page));
      const seen = await ctx.newPage();
      await seen.goto(`${p.base}/cabinet/audiences`);
      await seen.getByLabel('Pixel of Site visitors').waitFor();
      await seen.addScriptTag({ content: AXE });
      const found = await seen.evaluate<string[]>(
        `axe.run(document, { resultTypes: ['violations'] }).then((r) => r.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => v.id))`,
      );
      expect(found, `${viewport.width}px`).toEqual([]);
      if (viewport.width < 500)
        expect(await seen.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(viewport.width);
      await ctx.close();
    }
  }, 60_000);
});
