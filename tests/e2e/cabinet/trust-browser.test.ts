import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { ClickHouseClient } from '@clickhouse/client';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accounts, call, nativeCreativeForm, validCampaign } from '@adnet/test-support/admin';
import type { Account } from '@adnet/test-support/admin';
import { eventually } from '@adnet/test-support/engine';
import { CHROME_UA, SCREENS, sessionToken, signedIn, startProduct, useSession } from './product.ts';
import type { Product } from './product.ts';

// The cabinet a person trusts: money in one place (every "add funds" opens the deposit form with its limits
// stated), tables whose actions stay in view at 1280 and 390 px, and an admin who works from names
// (directory, account pages, credit with a reason, moderation with the facts and the keyboard).

let p: Product;
let adv: Account;
let pub: Account;
let admin: Account;
let campaignId: number;
let siteId: number;
let zone: { id: number; subid: string };
const CAMPAIGN = 'Zebra crossing promo';
const tokens = new Map<Account, string>();

beforeAll(async () => {
  p = await startProduct();
  [adv, pub, admin] = await accounts(p.app, 'advertiser', 'publisher', 'admin');
  const c = await call<{ id: number }>(p.app, 'POST', '/api/adv/campaigns', {
    token: adv.token,
    json: { ...validCampaign, name: CAMPAIGN },
  });
  campaignId = c.body.id;
  // A second campaign with a long name: the list is wider than the screen unless it fits.
  await call(p.app, 'POST', '/api/adv/campaigns', {
    token: adv.token,
    json: { ...validCampaign, name: 'An autumn clearance with a name long enough to push the columns apart' },
  });
  const creative = await call(p.app, 'POST', `/api/adv/campaigns/${campaignId}/creatives`, {
    token: adv.token,
    form: nativeCreativeForm(),
  });
  expect(creative.status).toBe(201);
  const site = await call<{ id: number }>(p.app, 'POST', '/api/pub/sites', {
    token: pub.token,
    json: { domain: 'quiet-news.test', category: 'news', language: 'en', traffic_estimate_daily: 1000 },
  });
  siteId = site.body.id;
  zone = (
    await call<{ id: number; subid: string }>(p.app, 'POST', '/api/pub/zones', {
      token: pub.token,
      json: { site_id: siteId, name: 'Sidebar', format: 'banner', banner_width: 300, banner_height: 250 },
    })
  ).body;
  await call(p.app, 'POST', '/api/admin/partners', {
    token: admin.token,
    json: { name: 'Exchange A', allowed_ips: ['198.51.100.7'], qps_limit: 10 },
  });
}, 120_000);
afterAll(async () => {
  await p?.stop();
});

/** A browser signed in as `who` once; later contexts reuse its session. */
async function signIn(who: Account): Promise<Page> {
  const page = await signedIn(p, who, /\/cabinet\/overview$/);
  tokens.set(who, await sessionToken(page));
  return page;
}

/** The cabinet session of `who`, signing in through the page the first time (each test can run alone). */
async function tokenOf(who: Account): Promise<string> {
  if (!tokens.has(who)) await (await signIn(who)).context().close();
  return tokens.get(who) ?? '';
}

/** The name of the field that has the focus (the tests' types have no DOM). */
const FOCUSED = 'document.activeElement && document.activeElement.getAttribute("name")';

describe('money in one place', () => {
  it('"Add funds" on the Overview opens the deposit form, its limits stated before anything is typed', async () => {
    const page = await signIn(adv);
    await page.getByRole('link', { name: 'Add funds' }).click();
    await page.waitForURL(/\/cabinet\/billing#add-funds$/);
    const f = page.getByRole('form', { name: 'Add funds' });
    await f.getByText('From $10.00 to $10,000.00 per deposit.').waitFor();
    // The cursor waits in the amount.
    expect(await page.evaluate<string | null>(FOCUSED)).toBe('amount_usd');
    // The balance, deposits and ledger are one area.
    for (const name of ['Deposits', 'Ledger', 'Monthly statement'])
      await page.getByRole('heading', { name, exact: true }).waitFor();
    expect(await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Balance' }).count()).toBe(0);
    await page.context().close();
  });

  it("the launch checklist's funds step leads to the same form, and old Balance links land in the ledger", async () => {
    const ctx = await p.newContext();
    await useSession(ctx, p.base, await tokenOf(adv));
    const page = await ctx.newPage();
    await page.goto(`${p.base}/cabinet/campaigns/${campaignId}`);
    await page.locator('[data-step="Funds"]').getByRole('link', { name: 'on the Billing page' }).click();
    await page.waitForURL(/\/cabinet\/billing#add-funds$/);
    await page.getByRole('form', { name: 'Add funds' }).getByText('From $10.00 to $10,000.00 per deposit.').waitFor();
    expect(await page.evaluate<string | null>(FOCUSED)).toBe('amount_usd');

    await page.goto(`${p.base}/cabinet/balance`);
    await page.waitForURL(/\/cabinet\/billing#ledger$/);
    await page.getByRole('heading', { name: 'Ledger', exact: true }).waitFor();
    // The header's balance goes to Billing; empty, to the deposit form.
    await page.locator('header a.balance').getByText('Balance $0.00').waitFor();
    expect(await page.locator('header a.balance').getAttribute('href')).toBe('/cabinet/billing#add-funds');
    await ctx.close();
  });
});

/** Every visible action control of the page that is not wholly inside the viewport and its scrolling boxes. */
const OFF_SCREEN = `(() => {
  const out = [];
  const controls = document.querySelectorAll('main button, main a.button, main summary, main select, main input:not([type=hidden])');
  for (const el of controls) {
    // A column's sort button may scroll with the figures under a sticky actions column; a row's actions may not.
    if (el.closest('thead')) continue;
    const r = el.getBoundingClientRect();
    if (!r.width || !r.height || el.closest('[hidden]') || getComputedStyle(el).visibility === 'hidden') continue;
    let box = { left: 0, right: window.innerWidth };
    for (let a = el.parentElement; a; a = a.parentElement) {
      const o = getComputedStyle(a).overflowX;
      if (o === 'auto' || o === 'scroll' || o === 'hidden') {
        const ar = a.getBoundingClientRect();
        box = { left: Math.max(box.left, ar.left), right: Math.min(box.right, ar.right) };
      }
    }
    if (r.left < box.left - 1 || r.right > box.right + 1)
      out.push((el.getAttribute('aria-label') || el.textContent || el.getAttribute('name') || el.tagName).trim().slice(0, 40));
  }
  return out;
})()`;

/** The innermost elements that reach past the viewport's right edge: what makes a page too wide. */
const WIDEST = `[...document.querySelectorAll('body *')].filter((el) => el.getBoundingClientRect().right > window.innerWidth + 1 && ![...el.children].some((c) => c.getBoundingClientRect().right > window.innerWidth + 1)).slice(0, 3).map((el) => el.tagName.toLowerCase() + (el.className ? '.' + String(el.className).split(' ')[0] : '') + ' ' + (el.textContent || '').trim().slice(0, 30)).join('; ')`;

describe('tables that fit', () => {
  it('at 1280 and 390 px every page of every role keeps its actions in view, nothing overflows sideways, axe is clean', async () => {
    const axe = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
    const problems: string[] = [];
    const extra: [Account, string[]][] = [
      [adv, [`/campaigns/${campaignId}`, '/campaigns/new']],
      [pub, []],
      [
        admin,
        [
          '/directory?kind=advertisers',
          '/directory?kind=publishers',
          '/directory?kind=sites',
          `/directory/accounts/${adv.id}`,
          `/directory/accounts/${pub.id}`,
          `/directory/campaigns/${campaignId}`,
          `/advertisers/${adv.id}/deposits`,
        ],
      ],
    ];
    for (const viewport of [
      { width: 1280, height: 900 },
      { width: 390, height: 844 },
    ]) {
      for (const [who, more] of extra) {
        // The cabinet's CSP allows only its own scripts: this context lets the checker in.
        const ctx = await p.browser.newContext({ bypassCSP: true, viewport, userAgent: CHROME_UA });
        await useSession(ctx, p.base, await tokenOf(who));
        const page = await ctx.newPage();
        await page.goto(`${p.base}/cabinet/overview`);
        await page.locator('main h1').first().waitFor();
        // Every page of the role's navigation, and the pages opened from them.
        const nav = await page.evaluate<string[]>(
          `[...document.querySelectorAll('#nav-list a')].map((a) => (a.getAttribute('href') || '').replace('/cabinet', ''))`,
        );
        expect(nav.length, `${who.email} is signed in`).toBeGreaterThan(3);
        for (const path of [...nav, ...more]) {
          await page.goto(`${p.base}/cabinet${path}`);
          await page.locator('main h1').first().waitFor();
          await eventually(async () => (await page.locator('.loading').count()) === 0);
          await page.waitForLoadState('networkidle');
          const where = `${viewport.width}px ${path}`;
          for (const name of await page.evaluate<string[]>(OFF_SCREEN))
            problems.push(`${where}: "${name}" is out of view`);
          const wide = await page.evaluate<number>('document.documentElement.scrollWidth');
          if (wide > viewport.width)
            problems.push(`${where}: the page is ${wide}px wide (${await page.evaluate<string>(WIDEST)})`);
          if (viewport.width < 500) {
            // A label with nothing after it ("Status:") says nothing.
            const empty = await page.evaluate<number>(
              `[...document.querySelectorAll('.grid td[data-label]')].filter((td) => td.offsetParent && td.dataset.label && !td.textContent.trim() && !td.querySelector('input,button,select,img,a')).length`,
            );
            if (empty) problems.push(`${where}: ${empty} labelled cells show nothing`);
          }
          // Chart labels stay inside the chart.
          const cut = await page.evaluate<number>(
            `[...document.querySelectorAll('svg.chart')].flatMap((svg) => { const b = svg.getBoundingClientRect(); return [...svg.querySelectorAll('text')].filter((t) => { const r = t.getBoundingClientRect(); return r.left < b.left - 1 || r.right > b.right + 1 || r.top < b.top - 1 || r.bottom > b.bottom + 1; }); }).length`,
          );
          if (cut) problems.push(`${where}: ${cut} chart labels cut off`);
          await page.addScriptTag({ content: axe });
          const found = await page.evaluate<string[]>(
            `axe.run(document, { resultTypes: ['violations'] }).then((r) => r.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => v.id + ' (' + v.nodes.length + ')'))`,
          );
          for (const f of found) problems.push(`${where}: axe ${f}`);
          await page.screenshot({
            path: `${SCREENS}trust-${viewport.width}${path.replace(/[/?=&]/g, '-')}.png`,
            fullPage: true,
          });
        }
        await ctx.close();
      }
    }
    expect(problems).toEqual([]);
  }, 300_000);
});

describe('the admin at work', () => {
  const adminPage = async (): Promise<Page> => {
    const ctx = await p.newContext();
    await useSession(ctx, p.base, await tokenOf(admin));
    return ctx.newPage();
  };

  it('finds a campaign and a publisher by name and opens their pages', async () => {
    const page = await adminPage();
    await page.goto(`${p.base}/cabinet/overview`);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Directory' }).click();
    const search = page.getByRole('form', { name: 'Search the directory' });
    await search.getByLabel('Name, email, domain or id').fill('zebra');
    await search.getByRole('button', { name: 'Search' }).click();
    await page.getByText('1–1 of 1').waitFor();
    const row = page.getByRole('row').filter({ hasText: CAMPAIGN });
    // The advertiser named beside the campaign.
    await row.getByRole('link', { name: adv.email }).waitFor();
    await row.getByRole('link', { name: CAMPAIGN }).click();
    await page.getByRole('heading', { level: 1, name: CAMPAIGN }).waitFor();
    await page.getByRole('cell', { name: 'pending moderation' }).waitFor();

    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Directory' }).click();
    await page.getByRole('navigation', { name: 'What to find' }).getByRole('link', { name: 'Publishers' }).click();
    await page
      .getByRole('form', { name: 'Search the directory' })
      .getByLabel('Name, email, domain or id')
      .fill('quiet-news');
    await page.getByRole('form', { name: 'Search the directory' }).getByRole('button', { name: 'Search' }).click();
    await page.getByText('1–1 of 1').waitFor();
    await page.getByRole('link', { name: pub.email }).click();
    await page.getByRole('heading', { level: 1, name: pub.email }).waitFor();
    await page.getByRole('region', { name: 'Sites' }).getByRole('cell', { name: 'quiet-news.test' }).waitFor();
    await page.getByRole('cell', { name: 'Sidebar' }).waitFor();
    // An over-long query in the address is cut to the API's bound, not an error page.
    await page.goto(`${p.base}/cabinet/directory?kind=campaigns&q=${'x'.repeat(150)}`);
    await page.getByText('Nothing found').waitFor();
    await page.context().close();
  });

  it("names campaigns, sites and zones in the admin's statistics, with whose they are", async () => {
    const hour = `${new Date().toISOString().slice(0, 13).replace('T', ' ')}:00:00`;
    await (p.app.svc.clickhouse as ClickHouseClient).insert({
      table: 'adnet.stats_hourly',
      format: 'JSONEachRow',
      values: [
        {
          hour,
          advertiser_id: adv.id,
          campaign_id: campaignId,
          publisher_id: pub.id,
          site_id: siteId,
          zone_id: zone.id,
          impressions: 100,
          spent_nano: 1_000_000_000,
        },
      ],
    });
    const page = await adminPage();
    await page.goto(`${p.base}/cabinet/statistics`);
    const f = page.getByRole('form', { name: 'Statistics query' });
    const show = async (group: string) => {
      for (const box of await f.getByRole('checkbox').all()) await box.uncheck();
      await f.getByRole('checkbox', { name: group, exact: true }).check();
      await f.getByRole('button', { name: 'Show' }).click();
    };
    await show('campaign');
    await page.getByRole('cell', { name: `${CAMPAIGN} · ${adv.email} (#${campaignId})` }).waitFor();
    await show('site');
    await page.getByRole('cell', { name: `quiet-news.test · ${pub.email} (#${siteId})` }).waitFor();
    await show('zone');
    await page.getByRole('cell', { name: `Sidebar (${zone.subid}) (#${zone.id})` }).waitFor();
    await page.context().close();
  });

  it("credits an account from its page, with a reason the ledger keeps and the advertiser's Billing shows", async () => {
    const page = await adminPage();
    await page.goto(`${p.base}/cabinet/directory/accounts/${adv.id}`);
    const f = page.getByRole('form', { name: 'Credit this account' });
    await f.getByLabel('Amount (USD)').fill('25');
    await f.getByRole('button', { name: 'Credit' }).click();
    // Without a reason nothing moves.
    await f.locator('[data-field="reason"] .field-error').getByText('must not be empty').waitFor();
    expect(await page.getByTestId('account-balance').textContent()).toBe('$0.00');
    await f.getByLabel('Reason').fill('Goodwill for the outage of 28 Nov');
    await f.getByRole('button', { name: 'Credit' }).click();
    await page.getByTestId('account-balance').getByText('$25.00').waitFor();
    const entry = page.getByRole('row').filter({ hasText: 'Goodwill for the outage of 28 Nov' });
    await entry.getByRole('cell', { name: '$25.00' }).first().waitFor();
    await page.context().close();

    const ctx = await p.newContext();
    await useSession(ctx, p.base, await tokenOf(adv));
    const mine = await ctx.newPage();
    await mine.goto(`${p.base}/cabinet/billing#ledger`);
    await mine.getByRole('row').filter({ hasText: 'Goodwill for the outage of 28 Nov' }).waitFor();
    await mine.locator('header a.balance').getByText('Balance $25.00').waitFor();
    expect(await mine.locator('header a.balance').getAttribute('href')).toBe('/cabinet/billing');
    await ctx.close();
  });

  it('shows a creative with its advertiser, vertical and landing domain, and approves it from the keyboard', async () => {
    const page = await adminPage();
    await page.goto(`${p.base}/cabinet/moderation`);
    await page.getByRole('heading', { name: 'Creatives (1)' }).waitFor();
    const item = page.locator('article.moderation-item');
    await item.getByRole('link', { name: adv.email }).waitFor();
    await item.getByRole('link', { name: CAMPAIGN }).waitFor();
    expect(await item.getByTestId('vertical').textContent()).toBe('gambling');
    await item.getByRole('link', { name: 'offers.example.net' }).waitFor();
    expect(await item.locator('img.thumb').count()).toBe(1);
    // Typing a reason is not a command: "a" in the reason field approves nothing.
    await page.keyboard.press('Tab');
    await item.focus();
    await page.keyboard.press('r');
    await page.keyboard.type('a');
    expect(await page.getByRole('heading', { name: 'Creatives (1)' }).count()).toBe(1);
    await item.focus();
    await page.keyboard.press('a');
    await page.getByRole('heading', { name: 'Creatives (0)' }).waitFor();
    await page.getByText(/creative \d+ approved/).waitFor();
    const approved = await call<{ creatives: { status: string }[] }>(
      p.app,
      'GET',
      `/api/admin/campaigns/${campaignId}`,
      {
        token: admin.token,
      },
    );
    expect(approved.body.creatives.map((c) => c.status)).toEqual(['approved']);
    await page.context().close();
  });
});
