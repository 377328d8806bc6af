import { readFile } from 'node:fs/promises';
import type { ClickHouseClient } from '@clickhouse/client';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addDays, newestClosableDay } from '@adnet/admin/payout-days';
import { accounts, call } from '@adnet/test-support/admin';
import type { Account } from '@adnet/test-support/admin';
import { screenshot, signedIn, startProduct } from './product.ts';
import type { Product } from './product.ts';

let p: Product;
let adv: Account;
let pub: Account;
let admin: Account;

beforeAll(async () => {
  p = await startProduct();
  [adv, pub, admin] = await accounts(p.app, 'advertiser', 'publisher', 'admin');
}, 90_000);
afterAll(async () => {
  await p?.stop();
});

const signIn = (who: Account, landing: RegExp): Promise<Page> => signedIn(p, who, landing);

interface Balance {
  balance_cents: number;
  ledger: { reason: string; amount_cents: number }[];
}

describe('billing in a real browser', () => {
  it('an advertiser deposits through the local Pay page and is credited once', async () => {
    const page = await signIn(adv, /\/cabinet\/overview$/);
    await page.getByRole('link', { name: 'Billing' }).click();
    const f = page.getByRole('form', { name: 'Add funds' });
    await f.getByLabel('Amount (USD)').fill('2');
    await f.getByRole('button', { name: 'Continue to payment' }).click();
    const amountError = f.locator('[data-field="amount_usd"] .field-error');
    await amountError.waitFor({ state: 'visible' });
    expect(await amountError.textContent()).toBe('must be at least 10.00');

    await f.getByLabel('Amount (USD)').fill('25.50');
    await f.getByRole('button', { name: 'Continue to payment' }).click();
    await page.waitForURL(/\/pay\/local\/[0-9a-f]{64}$/);
    const payUrl = page.url();
    await page.getByRole('button', { name: 'Pay $25.50' }).click();
    await page.getByRole('heading', { name: 'Payment complete' }).waitFor();
    // Back in the browser and pressing Pay again, or posting the form by hand: nothing more.
    await page.goBack();
    await page.getByText('This checkout is already paid').waitFor();
    expect((await fetch(payUrl, { method: 'POST' })).status).toBe(409);

    await page.goto(`${p.base}/cabinet/billing`);
    await page.getByTestId('balance').getByText('$25.50').waitFor();
    await page.getByRole('cell', { name: 'paid' }).waitFor();
    const number = `R${adv.id}-000001`;
    await screenshot(page, 'billing', ['Billing', number, '$25.50']);
    const download = page.waitForEvent('download');
    await page.getByRole('button', { name: `Receipt ${number}` }).click();
    const file = await download;
    expect(file.suggestedFilename()).toBe(`receipt-${number}.html`);

    const b = (await call<Balance>(p.app, 'GET', '/api/adv/balance', { token: adv.token })).body;
    expect(b.balance_cents).toBe(2550);
    expect(b.ledger.filter((e) => e.reason.startsWith('deposit #'))).toHaveLength(1);
  });

  it('a publisher sets payout details and sees a payout the admin then marks paid', async () => {
    const page = await signIn(pub, /\/cabinet\/overview$/);
    await page.getByRole('link', { name: 'Payouts' }).click();
    const f = page.getByRole('form', { name: 'Payout settings' });
    await f.getByLabel('Method').selectOption('wire');
    await f.getByLabel('Account holder').fill('Ann Example');
    await f.getByLabel('IBAN').fill('DE89 3704 0044 0532 0130 01');
    await f.getByLabel('BIC / SWIFT').fill('COBADEFFXXX');
    await f.getByLabel(/^Pay out from/).fill('10');
    await f.getByRole('button', { name: 'Save settings' }).click();
    const ibanError = f.locator('[data-field="details.iban"] .field-error');
    await ibanError.waitFor({ state: 'visible' });
    expect(await ibanError.textContent()).toBe('must be a valid IBAN');
    await f.getByLabel('IBAN').fill('DE89 3704 0044 0532 0130 00');
    await f.getByRole('button', { name: 'Save settings' }).click();
    await page.getByText('Payout settings saved').waitFor();

    // Earnings of a day past the hold period, then the admin runs the close from the cabinet.
    const day = addDays(newestClosableDay(Date.now(), p.app.svc.config.billing.payoutHoldDays), -1);
    await (p.app.svc.clickhouse as ClickHouseClient).insert({
      table: 'adnet.stats_hourly',
      format: 'JSONEachRow',
      values: [
        {
          hour: `${day} 10:00:00`,
          advertiser_id: adv.id,
          campaign_id: 1,
          publisher_id: pub.id,
          impressions: 100,
          spent_nano: 20 * 1_000_000_000,
        },
      ],
    });
    const adm = await signIn(admin, /\/cabinet\/overview$/);
    await adm.getByRole('link', { name: 'Payouts' }).click();
    await adm.getByRole('button', { name: 'Run the daily close now' }).click();
    await adm.getByText('1 payouts due').waitFor();
    const row = adm.getByRole('row').filter({ hasText: 'DE89370400440532013000' });
    await row.getByRole('cell', { name: '$14.00' }).waitFor();
    // The publisher by email, with the id beside it.
    expect(await row.getByRole('cell').nth(1).textContent()).toBe(`${pub.email} #${pub.id}`);
    const id = (await row.getByRole('cell').first().textContent())?.replace('#', '') ?? '';
    await adm.getByLabel(`Reference for payout ${id}`).fill('WIRE-2026-11-001');
    await adm.getByRole('button', { name: `Mark payout ${id} paid` }).click();
    await adm.getByText(`Payout ${id} marked paid`).waitFor();
    // The paid view lists it, and says which view it is.
    await adm.getByRole('navigation', { name: 'Payouts by status' }).getByRole('link', { name: 'paid' }).click();
    await adm.getByRole('link', { name: 'paid', exact: true }).and(adm.locator('[aria-current="page"]')).waitFor();
    await adm.getByRole('row').filter({ hasText: 'DE89370400440532013000' }).getByText('WIRE-2026-11-001').waitFor();

    await page.reload();
    await page.getByRole('cell', { name: 'WIRE-2026-11-001' }).waitFor();
    await screenshot(page, 'payouts', ['Payouts', '$14.00', 'WIRE-2026-11-001']);
  });

  it('an admin refunds the deposit from the cabinet; the advertiser sees it refunded', async () => {
    const adm = await signIn(admin, /\/cabinet\/overview$/);
    // The advertiser's page in the directory leads to its deposits.
    await adm.getByRole('link', { name: 'Directory', exact: true }).click();
    await adm.getByRole('navigation', { name: 'What to find' }).getByRole('link', { name: 'Advertisers' }).click();
    await adm.getByRole('link', { name: adv.email }).click();
    await adm.getByRole('link', { name: 'Deposits and refunds' }).click();
    await adm.getByRole('heading', { name: `Deposits of ${adv.email}` }).waitFor();
    await adm.getByRole('button', { name: /^Refund deposit \d+$/ }).click();
    await adm.getByRole('cell', { name: 'refunded' }).waitFor();
    const page = await signIn(adv, /\/cabinet\/overview$/);
    await page.goto(`${p.base}/cabinet/billing`);
    await page.getByTestId('balance').getByText('$0.00').waitFor();
    await page.getByRole('cell', { name: 'refunded' }).waitFor();
    // The receipt stays, showing the refund.
    const download = page.waitForEvent('download');
    await page.getByRole('button', { name: `Receipt R${adv.id}-000001` }).click();
    const path = await (await download).path();
    expect(await readFile(path, 'utf8')).toContain('Refunded');
  });
});
