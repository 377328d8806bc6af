import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { account, call, validCampaign } from '@adnet/test-support/admin';
import type { Account } from '@adnet/test-support/admin';
import { screenshot, startProduct } from './product.ts';
import type { Product } from './product.ts';

// The admin's deals page in a real browser, over the product's real admin, engine and Redis.

let p: Product;
let admin: Account;
let page: Page;
let partnerId = 0;
let campaignId = 0;
let advertiserId = 0;

beforeAll(async () => {
  p = await startProduct();
  admin = await account(p.app, 'admin');
  const adv = await account(p.app, 'advertiser');
  advertiserId = adv.id;
  partnerId = (
    await call<{ id: number }>(p.app, 'POST', '/api/admin/partners', {
      token: admin.token,
      json: { name: 'Exchange', allowed_ips: ['192.0.2.1'] },
    })
  ).body.id;
  campaignId = (
    await call<{ id: number }>(p.app, 'POST', '/api/adv/campaigns', { token: adv.token, json: validCampaign })
  ).body.id;
  page = await (await p.newContext()).newPage();
}, 90_000);
afterAll(async () => {
  await p?.stop();
});

describe('deals in the cabinet', () => {
  it('lets the admin add a deal, shows field errors beside their fields, change its floor and delete it', async () => {
    await page.goto(`${p.base}/cabinet/signin`);
    const signIn = page.getByRole('form', { name: 'Sign in' });
    await signIn.getByLabel('Email').fill(admin.email);
    await signIn.getByLabel('Password').fill('password-123');
    await signIn.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(/\/cabinet\/overview$/);
    await page.getByRole('link', { name: 'Deals' }).click();

    const add = page.getByRole('form', { name: 'Add deal' });
    await add.getByLabel(/^Deal id/).fill('PMP-CAB-1');
    await add.getByLabel(/^Floor/).fill('1.25');
    // Partners and campaigns are picked by name; none picked is named beside its field, in the API's words.
    await add.getByLabel('Campaigns', { exact: true }).fill('spring');
    await add.getByRole('checkbox', { name: `Spring promo (#${campaignId}, advertiser ${advertiserId})` }).check();
    await add.getByRole('button', { name: 'Add deal' }).click();
    await add.locator('[data-field="partner_ids"] .field-error').getByText('must list at least one id').waitFor();
    await add.getByLabel('Partners', { exact: true }).fill('excha');
    await add.getByRole('checkbox', { name: `Exchange (#${partnerId})` }).check();
    await add.getByRole('button', { name: 'Add deal' }).click();
    await page.getByRole('cell', { name: 'PMP-CAB-1', exact: true }).waitFor();
    await page.getByText('$1.25 CPM').waitFor();

    await page
      .getByText(
        `partners Exchange (#${partnerId}) · campaigns Spring promo (#${campaignId}, advertiser ${advertiserId})`,
      )
      .click();
    const edit = page.getByRole('form', { name: 'Edit deal PMP-CAB-1' });
    await edit.getByLabel(/^Floor/).fill('2.5');
    await edit.getByRole('button', { name: 'Save' }).click();
    await page.getByText('$2.50 CPM').waitFor();
    await screenshot(page, 'deals', ['PMP-CAB-1', '$2.50 CPM']);
    await eventuallyMirrored('PMP-CAB-1', true);

    await page.getByRole('button', { name: 'Delete deal PMP-CAB-1' }).click();
    await page.getByText('Deal PMP-CAB-1 deleted').waitFor();
    // The notice comes before the list is drawn again: wait for the row to go.
    await page.getByRole('cell', { name: 'PMP-CAB-1', exact: true }).waitFor({ state: 'detached' });
    await eventuallyMirrored('PMP-CAB-1', false);
  });
});

/** The product's engine has (or no longer has) the deal in its index. */
async function eventuallyMirrored(id: string, present: boolean): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if ((p.engine.engine.mirror.index?.deals.has(id) ?? false) === present) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`deal ${id} ${present ? 'never reached' : 'never left'} the engine`);
}
