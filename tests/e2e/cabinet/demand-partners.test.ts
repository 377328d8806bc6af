import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { account, call } from '@adnet/test-support/admin';
import type { Account } from '@adnet/test-support/admin';
import { screenshot, startProduct } from './product.ts';
import type { Product } from './product.ts';

// The admin's demand-partners page: add a DSP, see it refused when the endpoint is not https, change
// its limits, see its health (counted by the engines), disable it.
let p: Product;
let admin: Account;
let adm: Page;

beforeAll(async () => {
  p = await startProduct();
  admin = await account(p.app, 'admin');
  adm = await (await p.newContext()).newPage();
}, 90_000);
afterAll(async () => {
  await p?.stop();
});

const form = (page: Page, name: string) => page.getByRole('form', { name });

describe('demand partners in the cabinet', () => {
  it('lets the admin add a DSP, change its limits, see its health and disable it', async () => {
    await adm.goto(`${p.base}/cabinet/signin`);
    const signIn = form(adm, 'Sign in');
    await signIn.getByLabel('Email').fill(admin.email);
    await signIn.getByLabel('Password').fill('password-123');
    await signIn.getByRole('button', { name: 'Sign in' }).click();
    await adm.waitForURL(/\/cabinet\/overview$/);
    await adm.getByRole('link', { name: 'Demand partners' }).click();
    const add = form(adm, 'Add demand partner');
    await add.getByLabel('Name', { exact: true }).fill('DSP One');
    await add.getByLabel('Endpoint (https)').fill('http://dsp.example/bid');
    await add.getByRole('button', { name: 'Add demand partner' }).click();
    await add.locator('[data-field="endpoint"] .field-error').waitFor({ state: 'visible' });
    await add.getByLabel('Endpoint (https)').fill('https://dsp.example/bid');
    // Countries by name, sent as their codes.
    await add.getByLabel('Countries (none chosen: all)').fill('austr');
    await add.getByRole('checkbox', { name: 'Austria (AT)' }).check();
    // Push slots are offered too (the push sender's auctions).
    await add.getByRole('checkbox', { name: 'push', exact: true }).check();
    await add.getByRole('button', { name: 'Add demand partner' }).click();
    await adm.getByText('banner, push · 100 QPS · 150 ms').click();
    // What the engines counted (they add to this hash every second).
    await p.app.svc.redis.hset('dmd:stats:1', {
      requests: 40_000,
      bids: 12,
      wins: 5,
      impressions: 4,
      clicks: 3,
      invalid_clicks: 1,
      timeouts: 3,
      invalid_json: 2,
      bad_landing: 1,
      revenue_nano: 12_000_000_000,
    });
    await p.app.svc.redis.hset('dmd:circuit', '1', 'open');
    const edit = form(adm, 'Edit demand partner DSP One');
    await edit.getByLabel('Timeout (ms, at most 200)').fill('250');
    await edit.getByRole('button', { name: 'Save' }).click();
    await edit.locator('[data-field="timeout_ms"] .field-error').waitFor({ state: 'visible' });
    await edit.getByLabel('Timeout (ms, at most 200)').fill('120');
    await edit.getByLabel('OpenRTB version').selectOption('2.6');
    await edit.getByRole('button', { name: 'Save' }).click();
    await adm.getByText('banner, push · 100 QPS · 120 ms · OpenRTB 2.6').waitFor();
    await adm.getByText('40,000 requests · 12 bids · 5 wins · 4 impressions · $12.00').waitFor();
    await adm.getByText('3 clicks · 1 invalid clicks').waitFor();
    await adm.getByText('Discarded: invalid json 2, bad landing 1').waitFor();
    await adm.getByText('3 timeouts · 0 late · 0 errors · 0 passes').waitFor();
    await adm.getByText('circuit open').waitFor();
    await adm.getByRole('button', { name: 'Disable DSP One' }).click();
    await adm.getByRole('cell', { name: 'disabled' }).waitFor();
    await screenshot(adm, 'demand-partners', ['DSP One', '120 ms', 'circuit open', 'disabled']);
    const listed = await call<{ demand_partners: { countries: string[] }[] }>(
      p.app,
      'GET',
      '/api/admin/demand-partners',
      { token: admin.token },
    );
    expect(listed.body.demand_partners.map((d) => d.countries)).toEqual([['at']]);
    // The admin's home names it among the partners, with its state and what the engines counted.
    await adm.getByRole('link', { name: 'Overview' }).click();
    const row = adm.getByRole('row').filter({ hasText: 'DSP One' });
    await row.waitFor();
    expect(await row.locator('td').allTextContents()).toEqual([
      'DSP One',
      'demand (DSP)',
      'disabled',
      '40,000',
      '3',
      '$12.00',
    ]);
    await adm.getByRole('group', { name: 'Network today' }).getByText('$12.00').waitFor();
  });
});
