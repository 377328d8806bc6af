// The account pages in a real browser: a forgotten password reset through the emailed link (read
// from a real SMTP server in this process), then API keys and signing out everywhere.
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CABINET_DIST, buildCabinet } from '@adnet/cabinet/build';
import { account, call, startApp } from '@adnet/test-support/admin';
import type { Account, TestApp } from '@adnet/test-support/admin';
import { launchChromium } from '@adnet/test-support/browser';
import { startRedis } from '@adnet/test-support/redis';
import type { TestRedis } from '@adnet/test-support/redis';
import { startSmtp } from '@adnet/test-support/smtp';
import type { TestSmtp } from '@adnet/test-support/smtp';

let redis: TestRedis;
let smtp: TestSmtp;
let app: TestApp;
let browser: Browser;
let page: Page;
let adv: Account;

beforeAll(async () => {
  await buildCabinet();
  [redis, smtp] = await Promise.all([startRedis(), startSmtp()]);
  // The mail worker runs as in `pnpm start`, on a short poll.
  app = await startApp(
    redis.url,
    { SMTP_URL: smtp.url, MAIL_POLL_MS: '100' },
    { cabinetDir: CABINET_DIST, parts: ['mail'] },
  );
  browser = await launchChromium();
  page = await (await browser.newContext()).newPage();
  page.setDefaultTimeout(8_000);
  adv = await account(app, 'advertiser');
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await app?.close();
  await smtp?.close();
  await redis?.stop();
});

const form = (p: Page, name: string) => p.getByRole('form', { name });

async function signIn(email: string, password: string): Promise<void> {
  await page.goto(`${app.base}/cabinet/signin`);
  const f = form(page, 'Sign in');
  await f.getByLabel('Email').fill(email);
  await f.getByLabel('Password').fill(password);
  await f.getByRole('button', { name: 'Sign in' }).click();
}

describe('account recovery and security in the cabinet', () => {
  it('confirms an email from the link mailed at sign-up, and refuses the link once used', async () => {
    const email = `verify.${Date.now()}@example.com`;
    expect(
      (
        await call(app, 'POST', '/api/auth/register', {
          json: { email, password: 'sign-up-pass-1', role: 'publisher' },
        })
      ).status,
    ).toBe(202);
    const mail = await smtp.waitFor((m) => m.to.includes(email) && m.subject === 'Confirm your email address');
    const link = /https?:\/\/\S+\/cabinet\/verify-email#token=[A-Za-z0-9_-]+/.exec(mail.text)?.[0] as string;
    await page.goto(link);
    await page.getByText('Your email address is confirmed').waitFor();
    expect(page.url()).toBe(`${app.base}/cabinet/verify-email`);
    await page.goto(link);
    await page.getByText('This link is invalid, used or expired').waitFor();
  });

  it('resets a forgotten password from the emailed link, then signs in with it', async () => {
    await page.goto(`${app.base}/cabinet/signin`);
    await page.getByRole('link', { name: 'Forgot your password?' }).click();
    await page.waitForURL(/\/cabinet\/reset-password$/);
    const ask = form(page, 'Reset password');
    await ask.getByLabel('Email').fill(adv.email);
    await ask.getByRole('button', { name: 'Email me a link' }).click();
    await page.getByText('If this email has an account, a link to reset its password is on its way').waitFor();

    const mail = await smtp.waitFor((m) => m.to.includes(adv.email) && m.subject === 'Reset your password');
    const link = /https?:\/\/\S+\/cabinet\/reset-password#token=[A-Za-z0-9_-]+/.exec(mail.text)?.[0];
    expect(link?.startsWith(`${app.base}/cabinet/reset-password#token=`)).toBe(true);

    await page.goto(link as string);
    const choose = form(page, 'Choose a new password');
    await choose.getByLabel('New password').fill('short');
    await choose.getByRole('button', { name: 'Set password' }).click();
    await choose.getByText('must be at least 8 characters').waitFor();
    await choose.getByLabel('New password').fill('reset-in-browser-1');
    await choose.getByRole('button', { name: 'Set password' }).click();
    await page.getByRole('heading', { name: 'Password set' }).waitFor();
    // The token left the address bar.
    expect(page.url()).toBe(`${app.base}/cabinet/reset-password`);

    // The same link again is refused.
    await page.goto(link as string);
    const again = form(page, 'Choose a new password');
    await again.getByLabel('New password').fill('another-pass-2');
    await again.getByRole('button', { name: 'Set password' }).click();
    await again.getByText('token: is invalid or expired').waitFor();

    await signIn(adv.email, 'reset-in-browser-1');
    await page.waitForURL(/\/cabinet\/overview$/);
    await page.getByText(`${adv.email} (advertiser)`).waitFor();
  });

  it('creates an API key shown once, revokes it, sets the low-balance notice, and signs out everywhere', async () => {
    await page.getByRole('link', { name: 'Account' }).click();
    await page.getByRole('heading', { name: 'Account and security' }).waitFor();

    const low = form(page, 'Notifications');
    await low.getByLabel(/balance falls below/).fill('-3');
    await low.getByRole('button', { name: 'Save notifications' }).click();
    await low.locator('[data-field="low_balance_usd"] .field-error').waitFor({ state: 'visible' });
    await low.getByLabel(/balance falls below/).fill('25');
    await low.getByRole('button', { name: 'Save notifications' }).click();
    await page.getByText('Notifications saved').waitFor();
    expect((await call(app, 'GET', '/api/adv/notifications', { token: (await signedInToken()) ?? '' })).body).toEqual({
      low_balance_usd: 25,
    });

    const create = form(page, 'New API key');
    await create.getByLabel('Name').fill('reporting script');
    await create.getByLabel('stats').check();
    await create.getByRole('button', { name: 'Create key' }).click();
    const shown = page.locator('#new-api-key');
    await shown.waitFor();
    const key = (await shown.textContent()) ?? '';
    expect(key).toMatch(/^adn_\d+_[A-Za-z0-9_-]{43}$/);
    await page.getByRole('cell', { name: 'read, stats' }).waitFor();
    expect((await call(app, 'GET', '/api/adv/campaigns', { token: key })).status).toBe(200);
    // The list never holds the key itself.
    expect(await page.locator('table').textContent()).not.toContain(key.slice(-30));

    page.once('dialog', (d) => void d.accept());
    await page.getByRole('button', { name: 'Revoke reporting script' }).click();
    await page.getByText('API key revoked').waitFor();
    expect((await call(app, 'GET', '/api/adv/campaigns', { token: key })).status).toBe(401);

    const token = await signedInToken();
    page.once('dialog', (d) => void d.accept());
    await page.getByRole('button', { name: 'Sign out everywhere' }).click();
    await page.waitForURL(/\/cabinet\/signin$/);
    expect((await call(app, 'GET', '/api/auth/me', { token })).status).toBe(401);
    expect(await signedInToken()).toBeUndefined();
  });
});

/** The session token, from the HttpOnly cookie the page itself cannot read. */
async function signedInToken(): Promise<string | undefined> {
  return (await page.context().cookies()).find((c) => c.name === 'adnet_session')?.value;
}
