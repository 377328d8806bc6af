import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { account, call } from '@adnet/test-support/admin';
import type { Account } from '@adnet/test-support/admin';
import { CHROME_UA, screenshot, sessionToken, signedIn, startProduct, useSession } from './product.ts';
import type { Product } from './product.ts';

// The campaign builder in a real browser over the product's real admin, engine and Redis: every step at
// desktop and phone sizes with axe-core clean on each, the draft kept while the page is left, an API
// error shown beside its field on its step, and what was launched read back through the API.

interface StoredCampaign {
  id: number;
  geo_include: string[];
  languages: string[];
  dayparting: Record<string, number[]> | null;
  timezone: string;
  start_at: string | null;
  target_cpa_cents: number | null;
  audiences_include: number[];
  audiences_exclude: number[];
  daily_budget_cents: number;
  format: string;
  sources: { mode: string; zones: string[]; sites: number[] };
}

let p: Product;
let adv: Account;
let token = '';
let visitors = 0;
let buyers = 0;
const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

beforeAll(async () => {
  p = await startProduct({ parts: [] });
  adv = await account(p.app, 'advertiser');
  const audience = async (name: string) =>
    (
      await call<{ id: number }>(p.app, 'POST', '/api/adv/audiences', {
        token: adv.token,
        json: { name, source: 'pixel', lifetime_days: 30 },
      })
    ).body.id;
  visitors = await audience('Cart visitors');
  buyers = await audience('Buyers');
  token = await sessionToken(await signedIn(p, adv, /\/cabinet\/overview$/));
}, 120_000);
afterAll(async () => {
  await p?.stop();
});

/** A page of the advertiser's at `width`; the checker's script is let past the cabinet's CSP. */
async function builderPage(width: number, touch = false): Promise<Page> {
  const ctx = await p.browser.newContext({
    bypassCSP: true,
    userAgent: CHROME_UA,
    viewport: { width, height: width < 500 ? 740 : 900 },
    hasTouch: touch,
  });
  ctx.setDefaultTimeout(10_000);
  await useSession(ctx, p.base, token);
  const page = await ctx.newPage();
  await page.goto(`${p.base}/cabinet/campaigns/new`);
  await page.getByRole('form', { name: 'New campaign' }).waitFor();
  return page;
}

const problems: string[] = [];
/** axe-core's serious and critical findings, and a page wider than the screen, noted against the step. */
async function check(page: Page, step: string): Promise<void> {
  const width = page.viewportSize()?.width ?? 0;
  if ((await page.evaluate<boolean>('typeof axe === "undefined"')) === true)
    await page.addScriptTag({ content: axeSource });
  const found = await page.evaluate<string[]>(
    `axe.run(document, { resultTypes: ['violations'] }).then((r) => r.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => v.id + ' ' + v.nodes.map((n) => n.target.join(' ')).slice(0, 3).join(', ')))`,
  );
  for (const f of found) problems.push(`${width}px ${step}: ${f}`);
  const wide = await page.evaluate<number>('document.documentElement.scrollWidth');
  if (wide > width) problems.push(`${width}px ${step}: page is ${wide}px wide`);
}

const stepHeading = (page: Page, name: string) => page.getByRole('heading', { name, exact: true, level: 2 });
async function next(page: Page, to: string): Promise<void> {
  await page.getByRole('button', { name: `Next: ${to}` }).click();
  await stepHeading(page, to).waitFor();
}
const cell = (page: Page, label: string) => page.getByRole('button', { name: label, exact: true });
const campaign = async (id: number) =>
  (await call<StoredCampaign>(p.app, 'GET', `/api/adv/campaigns/${id}`, { token: adv.token })).body;

describe('the campaign builder', () => {
  it('builds a campaign step by step at 1280 px, keeps the draft when left, shows the API error on its step, launches it', async () => {
    const page = await builderPage(1280);
    const f = page.getByRole('form', { name: 'New campaign' });
    await stepHeading(page, 'Basics').waitFor();
    await check(page, 'basics');
    await f.getByLabel('Name', { exact: true }).fill('Winter sale');
    await f.getByLabel('Format', { exact: true }).selectOption('banner');
    await f.getByLabel('Vertical').selectOption('ecommerce');
    // A banner's creatives are images: no landing URL with the basics.
    expect(await f.getByLabel(/^Landing URL/).isVisible()).toBe(false);
    await next(page, 'Audience and targeting');

    const countries = f.getByLabel('Countries (none chosen = all)');
    await countries.fill('germ');
    await f.getByRole('checkbox', { name: 'Germany (DE)' }).check();
    await countries.fill('united st');
    await countries.press('Enter');
    const languages = f.getByLabel('Languages (none chosen = all)');
    await languages.fill('germ');
    await f.getByRole('checkbox', { name: 'German (de)' }).check();
    await languages.fill('fren');
    await f.getByRole('checkbox', { name: 'French (fr)' }).check();
    await f.getByText('Chosen (2): French (fr), German (de)').waitFor();
    await f
      .getByRole('group', { name: 'Devices (none checked = all)' })
      .getByRole('checkbox', { name: 'mobile' })
      .check();
    await f.locator('[data-field="audiences_include"]').getByRole('checkbox', { name: 'Cart visitors' }).check();
    await f.locator('[data-field="audiences_exclude"]').getByRole('checkbox', { name: 'Buyers' }).check();
    // The second subid is no subid: refused at the launch, beside this field.
    await f.getByLabel(/^Zones \(subids/).fill('abc123\nnot-a-zone!');
    await check(page, 'audience');
    await next(page, 'Bid, budget and goal');

    await f.getByLabel(/^Bid \(USD/).fill('1.5');
    // Below the API's minimum: its message comes back beside the field at the launch.
    await f.getByLabel('Daily budget (USD)').fill('0.5');
    await f.getByLabel(/^Target CPA/).fill('12');
    await page
      .getByRole('status', { name: 'Traffic estimate' })
      .getByText('daily_budget_usd: must be at least 1')
      .waitFor();
    await check(page, 'bid');
    await screenshot(page, 'campaign-builder-bid', ['Estimate']);
    await next(page, 'Schedule');

    // Left mid-way: the draft is there on return, on the step it was left at.
    await page.getByRole('link', { name: 'Overview' }).click();
    await page.waitForURL(/\/overview$/);
    await page.goto(`${p.base}/cabinet/campaigns/new`);
    await page.getByText(/Your unfinished draft of .+ is restored/).waitFor();
    await stepHeading(page, 'Schedule').waitFor();
    await f.getByRole('button', { name: '2. Audience and targeting' }).click();
    expect(await f.getByRole('checkbox', { name: 'Germany (DE)' }).isChecked()).toBe(true);
    expect(await f.getByRole('checkbox', { name: 'French (fr)' }).isChecked()).toBe(true);
    await f.getByRole('button', { name: '4. Schedule' }).click();

    await f.getByLabel('Time zone (of the dates and hours below)').selectOption('Europe/Berlin');
    const year = new Date().getUTCFullYear() + 1;
    await f.getByLabel('Start (empty = at once)').fill(`${year}-01-05T09:00`);
    // Monday 09:00 to 17:00 painted by one drag of the mouse.
    const from = await cell(page, 'Monday 09:00').boundingBox();
    const to = await cell(page, 'Monday 17:00').boundingBox();
    if (!from || !to) throw new Error('the hour grid is not on the page');
    await page.mouse.move(from.x + from.width / 2, from.y + from.height / 2);
    await page.mouse.down();
    await page.mouse.move(to.x + to.width / 2, to.y + to.height / 2, { steps: 12 });
    await page.mouse.up();
    expect(await cell(page, 'Monday 13:00').getAttribute('aria-pressed')).toBe('true');
    expect(await cell(page, 'Monday 18:00').getAttribute('aria-pressed')).toBe('false');
    // Tuesday 10:00 and 11:00 by the keyboard: into the grid, arrows to the cell, Space toggles.
    await cell(page, 'Monday 17:00').focus();
    for (const key of ['ArrowDown', 'Home', ...Array<string>(10).fill('ArrowRight'), ' ', 'ArrowRight', 'Enter'])
      await page.keyboard.press(key);
    expect(await cell(page, 'Tuesday 10:00').getAttribute('aria-pressed')).toBe('true');
    expect(await cell(page, 'Tuesday 11:00').getAttribute('aria-pressed')).toBe('true');
    expect(await page.evaluate<string | null>('document.activeElement?.getAttribute("aria-label")')).toBe(
      'Tuesday 11:00',
    );
    // One tab stop for the whole grid.
    expect(await page.locator('button.hour[tabindex="0"]').count()).toBe(1);
    await check(page, 'schedule');
    await screenshot(page, 'campaign-builder-schedule', ['Every hour']);
    await next(page, 'Creatives');
    await f.getByText('After the launch the campaign page opens').waitFor();
    await check(page, 'creatives');
    await next(page, 'Summary');

    const summary = f.locator('.summary');
    for (const line of [
      'Name: Winter sale',
      'Format: banner',
      'Countries: Germany, United States',
      'Languages: French, German',
      'Devices: mobile',
      'Only people in: Cart visitors',
      'Never people in: Buyers',
      'CPM bid: $1.50 per thousand impressions',
      'Target CPA: $12.00 per conversion',
      `Starts: ${year}-01-05 09:00 (Europe/Berlin)`,
      'Hours (Europe/Berlin): Mon 09:00–18:00; Tue 10:00–12:00',
    ])
      await summary.getByText(line, { exact: false }).waitFor();
    await check(page, 'summary');
    await screenshot(page, 'campaign-builder-summary', ['Launch campaign']);
    // "Edit" goes back to the step.
    await f.getByRole('button', { name: 'Edit basics' }).click();
    await stepHeading(page, 'Basics').waitFor();
    await f.getByRole('button', { name: '6. Summary' }).click();

    await f.getByRole('button', { name: 'Launch campaign' }).click();
    // Refused on two steps: the first of them opens with the API's words beside the field, the other is marked.
    await stepHeading(page, 'Audience and targeting').waitFor();
    await f
      .locator('[data-field="sources.zones"] .field-error')
      .getByText('must be a zone subid (1-32 letters and digits)')
      .waitFor();
    await f.getByLabel(/^Zones \(subids/).fill('abc123');
    await f.getByRole('button', { name: /^3\. Bid, budget and goal \(to fix\)$/ }).click();
    await stepHeading(page, 'Bid, budget and goal').waitFor();
    const budgetError = f.locator('[data-field="daily_budget_usd"] .field-error');
    await budgetError.getByText('must be at least 1').waitFor();
    expect(await f.getByLabel('Daily budget (USD)').getAttribute('aria-invalid')).toBe('true');
    await f.getByLabel('Daily budget (USD)').fill('50');
    await f.getByRole('button', { name: '6. Summary' }).click();
    await f.getByRole('button', { name: 'Launch campaign' }).click();
    await page.waitForURL(/\/cabinet\/campaigns\/\d+$/);
    await page.getByRole('heading', { name: 'Winter sale' }).waitFor();
    await page.getByText('Campaign Winter sale created').waitFor();
    const id = Number(/(\d+)$/.exec(page.url())?.[1]);

    expect(await campaign(id)).toMatchObject({
      format: 'banner',
      geo_include: ['de', 'us'],
      languages: ['fr', 'de'],
      timezone: 'Europe/Berlin',
      start_at: `${year}-01-05T08:00:00.000Z`,
      dayparting: { mon: [9, 10, 11, 12, 13, 14, 15, 16, 17], tue: [10, 11] },
      target_cpa_cents: 1200,
      audiences_include: [visitors],
      audiences_exclude: [buyers],
      daily_budget_cents: 5000,
      sources: { mode: 'exclude', zones: ['abc123'], sites: [] },
    });
    // Launched: the draft is gone.
    expect(
      await page.evaluate<number>(
        'Object.keys(localStorage).filter((k) => k.startsWith("adnet.campaign-draft")).length',
      ),
    ).toBe(0);

    // Editing uses the same steps, filled from the campaign.
    await page.getByRole('link', { name: 'Edit settings' }).click();
    const edit = page.getByRole('form', { name: 'Edit campaign' });
    await edit.getByLabel('Name', { exact: true }).waitFor();
    expect(await edit.getByLabel('Name', { exact: true }).inputValue()).toBe('Winter sale');
    await edit.getByRole('button', { name: '4. Schedule' }).click();
    expect(await cell(page, 'Monday 09:00').getAttribute('aria-pressed')).toBe('true');
    expect(await edit.getByLabel('Start (empty = at once)').inputValue()).toBe(`${year}-01-05T09:00`);
    await edit.getByRole('button', { name: 'Clear (around the clock)' }).click();
    await edit.getByRole('button', { name: '3. Bid, budget and goal' }).click();
    await edit.getByLabel(/^Target CPA/).fill('');
    await edit.getByRole('button', { name: '6. Summary' }).click();
    await edit.locator('.summary').getByText('Hours (Europe/Berlin): around the clock').waitFor();
    await edit.getByRole('button', { name: 'Save changes' }).click();
    await page.getByText('Campaign saved').waitFor();
    expect(await campaign(id)).toMatchObject({ dayparting: null, target_cpa_cents: null, geo_include: ['de', 'us'] });
    await page.context().close();
  }, 120_000);

  it('makes a popunder at 375 px with a landing URL and no upload step; a draft can be discarded', async () => {
    const page = await builderPage(375, true);
    const f = page.getByRole('form', { name: 'New campaign' });
    await f.getByLabel('Name', { exact: true }).fill('Pop night');
    await f.getByLabel('Format', { exact: true }).selectOption('popunder');
    await f.getByLabel('Vertical').selectOption('software');
    // A pop is its landing page: the URL is asked here, with the macro help, and there is no creatives step.
    const landing = f.getByLabel('Landing URL (the page the pop opens)');
    await landing.fill('https://shop.example/offer?c=');
    await f.getByText('Macros: filled in at each click, URL-encoded').click();
    await f.getByRole('button', { name: 'Insert {click_id}' }).click();
    expect(await landing.inputValue()).toBe('https://shop.example/offer?c={click_id}');
    expect(await f.getByRole('button', { name: /Creatives$/ }).count()).toBe(0);
    await check(page, 'basics');
    await next(page, 'Audience and targeting');
    await check(page, 'audience');

    // Left and discarded: the builder starts again, empty.
    await page.reload();
    await page.getByText(/Your unfinished draft of .+ is restored/).waitFor();
    await f.getByRole('button', { name: '1. Basics' }).click();
    expect(await f.getByLabel('Name', { exact: true }).inputValue()).toBe('Pop night');
    await f.getByRole('button', { name: 'Discard draft' }).click();
    await page.getByText('Draft discarded').waitFor();
    expect(await f.getByLabel('Name', { exact: true }).inputValue()).toBe('');
    expect(await page.getByText(/Your unfinished draft/).count()).toBe(0);

    await f.getByLabel('Name', { exact: true }).fill('Pop night');
    await f.getByLabel('Format', { exact: true }).selectOption('popunder');
    await f.getByLabel('Vertical').selectOption('software');
    await next(page, 'Audience and targeting');
    await next(page, 'Bid, budget and goal');
    await f.getByLabel('Bid type').selectOption('cpc');
    await f.getByLabel(/^Bid \(USD/).fill('0.01');
    await f.getByLabel('Daily budget (USD)').fill('20');
    await check(page, 'bid');
    await next(page, 'Schedule');
    // A finger paints too.
    await cell(page, 'Saturday 20:00').tap();
    expect(await cell(page, 'Saturday 20:00').getAttribute('aria-pressed')).toBe('true');
    await check(page, 'schedule');
    await screenshot(page, 'campaign-builder-phone-schedule', ['Every hour']);
    await next(page, 'Summary');
    await check(page, 'summary');
    await screenshot(page, 'campaign-builder-phone-summary', ['Launch campaign']);
    // No URL yet: named beside its field on the basics, before anything is made.
    await f.getByRole('button', { name: 'Launch campaign' }).click();
    await stepHeading(page, 'Basics').waitFor();
    await f.locator('[data-field="landing_url"] .field-error').getByText('is required').waitFor();
    await f.getByLabel('Landing URL (the page the pop opens)').fill(`${p.site.base}/offer?c={click_id}`);
    await f.getByRole('button', { name: '5. Summary' }).click();
    await f.getByRole('button', { name: 'Launch campaign' }).click();
    await page.waitForURL(/\/cabinet\/campaigns\/\d+$/);
    const id = Number(/(\d+)$/.exec(page.url())?.[1]);
    expect(await campaign(id)).toMatchObject({ format: 'popunder', dayparting: { sat: [20] } });
    const { creatives } = (
      await call<{ creatives: { landing_url: string; image_url: string | null }[] }>(
        p.app,
        'GET',
        `/api/adv/campaigns/${id}/creatives`,
        { token: adv.token },
      )
    ).body;
    expect(creatives).toEqual([
      expect.objectContaining({ landing_url: `${p.site.base}/offer?c={click_id}`, image_url: null }),
    ]);
    await page.context().close();
    expect(problems).toEqual([]);
  }, 120_000);
});
