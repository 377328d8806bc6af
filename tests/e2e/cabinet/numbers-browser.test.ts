import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { moderationWaitText } from '@adnet/schemas/moderation-wait';
import type { Campaign, Creative } from '@adnet/schemas/api';
import type { StatsRow } from '@adnet/schemas/stats';
import { account, call, validCampaign } from '@adnet/test-support/admin';
import type { Account } from '@adnet/test-support/admin';
import { eventually } from '@adnet/test-support/engine';
import { makePng } from '@adnet/test-support/images';
import { World } from '@adnet/test-support/world';
import { allClearText, creativeStepText, deliveryText } from '@adnet/cabinet/delivery-text';
import { count, spend } from '@adnet/cabinet/format';
import { CHROME_UA, SCREENS, sessionToken, signedIn, startProduct } from './product.ts';
import type { Product } from './product.ts';

// One truth and numbers where decisions are made (issue 40, items 2 and 3): every message the cabinet shows on the
// first campaign's way is the API's state at that step, in the cabinet's own words; a campaign's page shows the
// statistics the API answers, and its controls write the API's fields.

let p: Product;
let admin: Account;
const VIEWPORTS = [
  { width: 1280, height: 900 },
  { width: 390, height: 844 },
] as const;
const axe = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

beforeAll(async () => {
  p = await startProduct();
  admin = await account(p.app, 'admin');
}, 120_000);
afterAll(async () => {
  await p?.stop();
});

const get = async <T>(path: string, token: string): Promise<T> => {
  const r = await call<T>(p.app, 'GET', path, { token });
  expect(r.status, path).toBe(200);
  return r.body;
};

/** Serious and critical axe findings of the page as it is now. */
async function axeProblems(page: Page): Promise<string[]> {
  await page.addScriptTag({ content: axe });
  return page.evaluate<string[]>(
    `axe.run(document, { resultTypes: ['violations'] }).then((r) => r.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => v.id + ': ' + v.nodes.map((n) => n.target.join(' ')).join(', ')))`,
  );
}

/** A page signed in as `who` at `viewport`, with the CSP relaxed only so axe can be injected. */
async function pageOf(who: Account, viewport: { width: number; height: number }): Promise<Page> {
  const token = await sessionToken(await signedIn(p, who, /\/cabinet\/overview$/));
  const ctx = await p.browser.newContext({ bypassCSP: true, viewport, userAgent: CHROME_UA });
  ctx.setDefaultTimeout(15_000);
  await ctx.addCookies([
    { name: 'adnet_session', value: token, url: `${p.base}/trpc`, httpOnly: true, sameSite: 'Strict' },
  ]);
  return ctx.newPage();
}

const stepDetail = async (page: Page, step: string): Promise<string> =>
  ((await page.locator(`[data-step="${step}"]`).textContent()) ?? '').replace(/\s+/g, ' ');

describe('one truth on the way to the first impression', () => {
  for (const viewport of VIEWPORTS) {
    it(`at ${viewport.width} px each message is the API's state at its step, axe clean`, async () => {
      const adv = await account(p.app, 'advertiser');
      const page = await pageOf(adv, viewport);
      const wait = async () =>
        moderationWaitText(
          (await get<{ moderation_eta_seconds: number }>('/api/auth/me', adv.token)).moderation_eta_seconds,
        );
      const problems: string[] = [];

      // A new advertiser: the first steps, with the moderation time the API gives.
      await page.goto(`${p.base}/cabinet/overview`);
      await page.getByRole('heading', { name: 'Start your first campaign' }).waitFor();
      await page.getByText(`Our moderators review it, ${await wait()} now`).waitFor();

      // A draft: listed as not serving, in the API's reasons; never "every active campaign is serving".
      const created = await call<Campaign>(p.app, 'POST', '/api/adv/campaigns', {
        token: adv.token,
        json: { ...validCampaign, name: `First ${viewport.width}` },
      });
      const id = created.body.id;
      await page.goto(`${p.base}/cabinet/overview`);
      const list = (await get<{ campaigns: Campaign[] }>('/api/adv/campaigns', adv.token)).campaigns;
      const attention = page.getByRole('region', { name: 'Needs attention' });
      await attention.getByText(`: ${deliveryText(list[0]?.delivery ?? { serving: true, reasons: [] })}`).waitFor();
      expect(await page.getByText('Every active campaign is serving.').count()).toBe(0);
      expect(allClearText(list)).toBe('No campaign is active.');
      problems.push(...(await axeProblems(page)).map((x) => `overview: ${x}`));

      // Its page: the delivery line and the checklist from the campaign's delivery status and its (no) creatives.
      const check = async (label: string) => {
        const [c, { creatives }, w] = await Promise.all([
          get<Campaign>(`/api/adv/campaigns/${id}`, adv.token),
          get<{ creatives: Creative[] }>(`/api/adv/campaigns/${id}/creatives`, adv.token),
          wait(),
        ]);
        await eventually(
          async () => ((await page.locator('p.delivery').textContent()) ?? '') === deliveryText(c.delivery),
          15_000,
        ).catch(() => undefined);
        expect(await page.locator('p.delivery').textContent(), label).toBe(deliveryText(c.delivery));
        const approved = !c.delivery.reasons.includes('no_approved_creative');
        expect(await stepDetail(page, 'Creative approved'), label).toContain(
          approved ? 'At least one creative can serve.' : creativeStepText(creatives, w),
        );
        expect(await stepDetail(page, 'Funds'), label).toContain(
          c.delivery.reasons.includes('no_funds') ? 'Your balance is empty' : 'Your balance covers spend.',
        );
        expect(await stepDetail(page, 'Activated'), label).toContain(c.status === 'active' ? 'Active.' : 'Activate it');
        return { c, creatives };
      };
      await page.goto(`${p.base}/cabinet/campaigns/${id}`);
      await page.locator('[data-step="Creative approved"]').waitFor();
      expect(await stepDetail(page, 'Creative approved')).toContain('Upload a creative below');
      await check('draft, nothing uploaded');
      problems.push(...(await axeProblems(page)).map((x) => `campaign page: ${x}`));

      // Upload through the page: the checklist follows without a reload, and the notice quotes the same wait.
      const f = page.getByRole('form', { name: 'Upload creative' });
      await f.getByLabel('Title').fill('Spring deals');
      await f.getByLabel('Landing URL').fill('https://shop.example.com/?c={click_id}');
      await f
        .getByLabel(/^Image/)
        .setInputFiles({ name: 'ad.png', mimeType: 'image/png', buffer: makePng(200, 200, 7) });
      await f.getByRole('button', { name: 'Upload creative' }).click();
      await page.getByText(/^Creative uploaded; review takes about \d+ (minute|hour)s?$/).waitFor();
      await page.locator('[data-step="Creative approved"]').getByText('1 creative in review').waitFor();
      const { creatives } = await check('uploaded, in review');
      expect(creatives.map((x) => x.status)).toEqual(['pending_moderation']);

      // An admin approves through the API: the open page sees the verdict by itself.
      const creativeId = creatives[0]?.id ?? 0;
      expect(
        (await call(p.app, 'POST', `/api/admin/creatives/${creativeId}/approve`, { token: admin.token })).status,
      ).toBe(200);
      await page.locator('[data-step="Creative approved"].done').waitFor({ timeout: 20_000 });
      await check('approved, no funds');

      // Funds paid: the next view of the page (an in-app move, no reload) says so, as the API does.
      await call(p.app, 'POST', `/api/admin/advertisers/${adv.id}/credit`, {
        token: admin.token,
        json: { amount_cents: 5_000 },
      });
      await page.getByRole('link', { name: '← Campaigns' }).click();
      await page.waitForURL(/\/cabinet\/campaigns$/);
      await page
        .getByRole('link', { name: `First ${viewport.width}` })
        .first()
        .click();
      await page.locator('[data-step="Funds"].done').waitFor();
      await check('funded, draft');

      // Activated from the page: serving, and the overview's all-clear is now true.
      await page.getByRole('button', { name: `Activate First ${viewport.width}` }).click();
      await page.locator('[data-step="Activated"].done').waitFor();
      const { c } = await check('active');
      expect(c.delivery).toEqual({ serving: true, reasons: [] });
      await page.goto(`${p.base}/cabinet/overview`);
      const after = (await get<{ campaigns: Campaign[] }>('/api/adv/campaigns', adv.token)).campaigns;
      await page.getByText(allClearText(after)).waitFor();
      expect(allClearText(after)).toBe('Every active campaign is serving.');
      await page.screenshot({ path: `${SCREENS}numbers-first-campaign-${viewport.width}.png`, fullPage: true });
      expect(problems).toEqual([]);
      await page.context().close();
    }, 120_000);
  }
});

describe("a campaign's own page", () => {
  let adv: Account;
  let campaignId: number;
  let zone: { id: number; subid: string };
  let domain: string;

  beforeAll(async () => {
    const world = await World.create(p.app);
    adv = await world.advertiser(100_000);
    // $1.50 CPM: three impressions spend 0.45 cents, which a cent would show as $0.00.
    const { campaign } = await world.campaign(adv, { name: 'Numbers', bid_usd: 1.5 });
    campaignId = campaign.id;
    const site = await world.site();
    domain = site.domain;
    zone = await world.zone({ name: 'Sidebar', format: 'banner', banner_width: 300, banner_height: 250 }, site);
    await eventually(
      () =>
        p.engine.engine.mirror.index?.zones.get(zone.subid)?.serving === true &&
        p.engine.engine.mirror.index.campaigns.get(campaignId)?.status === 'active',
      15_000,
    );
    const headers = { 'user-agent': CHROME_UA };
    await eventually(
      async () => (await fetch(`${p.base}/imp?z=${zone.subid}&fp=probe`, { headers })).status === 200,
      15_000,
    );
    let clicked = false;
    for (let i = 0; i < 3; i++) {
      const r = await fetch(`${p.base}/imp?z=${zone.subid}&fp=numbers-${i}`, { headers });
      const ad = (await r.json()) as { beacon_url: string; click_url: string };
      expect((await fetch(ad.beacon_url, { headers })).status).toBe(200);
      if (!clicked) {
        await fetch(ad.click_url, { headers, redirect: 'manual' });
        clicked = true;
      }
    }
    await p.ingest();
  }, 120_000);

  for (const viewport of VIEWPORTS) {
    it(`at ${viewport.width} px shows the API's figures, saves the bid in place, and its controls write sources and adjustments`, async () => {
      const tz = Intl.DateTimeFormat().resolvedOptions().timeZone;
      const today = new Intl.DateTimeFormat('en-CA', { timeZone: tz }).format(new Date());
      const q = new URLSearchParams({ from: today, to: today, tz, group_by: 'day', campaign_id: String(campaignId) });
      const [row] = (await get<{ rows: StatsRow[] }>(`/api/adv/stats?${q.toString()}`, adv.token)).rows;
      expect(row?.impressions).toBeGreaterThanOrEqual(3);
      const page = await pageOf(adv, viewport);
      await page.goto(`${p.base}/cabinet/campaigns/${campaignId}`);
      const tile = (figure: string, period = 'today') =>
        page.locator(`[data-figure="${figure}"] [data-period="${period}"]`);
      await tile('impressions').waitFor();
      expect(await tile('impressions').textContent()).toBe(count(row?.impressions ?? -1));
      expect(await tile('clicks').textContent()).toBe(count(row?.clicks ?? -1));
      expect(await tile('impressions', 'last_7_days').textContent()).toBe(count(row?.impressions ?? -1));
      // The exact spend, not a cent-rounded $0.00.
      expect(await tile('spent_nano').textContent()).toBe(spend(row?.spent_nano ?? -1));
      if ((row?.spent_nano ?? 0) < 10_000_000) expect(await tile('spent_nano').textContent()).not.toBe('$0.00');
      await page.getByRole('img', { name: 'Impressions and clicks, last 7 days' }).waitFor();
      // Today's spend in the header is the campaign's own, to its real value too.
      const live = await get<Campaign>(`/api/adv/campaigns/${campaignId}`, adv.token);
      await page.getByText(`spent today ${spend(live.daily_spent_nano)} of`).waitFor();

      // The bid, edited in place: a refused value is named beside the field, a good one is saved.
      const bid = page.locator('[data-setting="bid_usd"]');
      await bid.getByRole('button', { name: /^Edit bid/ }).click();
      await bid.getByRole('spinbutton', { name: /^Bid \(CPM\)/ }).fill('-1');
      await bid.getByRole('button', { name: 'Save' }).click();
      await bid.locator('.field-error').filter({ hasText: /\w/ }).waitFor();
      const refused = await call<{ errors?: Record<string, string> }>(
        p.app,
        'PATCH',
        `/api/adv/campaigns/${campaignId}`,
        {
          token: adv.token,
          json: { bid_usd: -1 },
        },
      );
      expect(refused.status).toBe(400);
      expect(await bid.locator('.field-error').textContent()).toBe(refused.body.errors?.bid_usd);
      const newBid = viewport.width === 1280 ? 2.5 : 1.75;
      await bid.getByRole('spinbutton', { name: /^Bid \(CPM\)/ }).fill(String(newBid));
      await bid.getByRole('button', { name: 'Save' }).click();
      await page
        .locator('[data-setting="bid_usd"] .setting-value')
        .getByText(`$${newBid.toFixed(2)} CPM`)
        .waitFor();
      expect((await get<Campaign>(`/api/adv/campaigns/${campaignId}`, adv.token)).bid_micro_cents).toBe(
        newBid * 100_000,
      );

      // Placements by domain and zone name; the controls write the API's fields.
      const name = `${domain} · Sidebar`;
      const placements = page.locator('#placements');
      await placements.getByText(name, { exact: true }).waitFor();
      expect(await placements.getByText(zone.subid).count()).toBe(0);
      const before = await get<Campaign>(`/api/adv/campaigns/${campaignId}`, adv.token);
      const excluded = before.sources.zones.includes(zone.subid);
      await placements.getByRole('button', { name: `${excluded ? 'Serve here again' : 'Exclude'} ${name}` }).click();
      await placements.getByRole('button', { name: `${excluded ? 'Exclude' : 'Serve here again'} ${name}` }).waitFor();
      const sources = (await get<Campaign>(`/api/adv/campaigns/${campaignId}`, adv.token)).sources;
      expect(sources.mode).toBe('exclude');
      expect(sources.zones.includes(zone.subid)).toBe(!excluded);

      const multiplier = viewport.width === 1280 ? 2 : 0.5;
      await placements.getByLabel(`Bid multiplier for ${name}`, { exact: true }).fill('50');
      await placements.getByRole('button', { name: `Set bid multiplier for ${name}` }).click();
      await placements.locator('.multiplier .field-error').filter({ hasText: /\w/ }).waitFor();
      await placements.getByLabel(`Bid multiplier for ${name}`, { exact: true }).fill(String(multiplier));
      await placements.getByRole('button', { name: `Set bid multiplier for ${name}` }).click();
      await eventually(
        async () =>
          (await get<Campaign>(`/api/adv/campaigns/${campaignId}`, adv.token)).bid_adjustments.some(
            (a) => a.zone === zone.subid && a.multiplier === multiplier,
          ),
        10_000,
      );
      await page.locator('#placements').getByLabel(`Bid multiplier for ${name}`, { exact: true }).waitFor();
      expect(
        await page.locator('#placements').getByLabel(`Bid multiplier for ${name}`, { exact: true }).inputValue(),
      ).toBe(String(multiplier));
      // The creatives carry their own figures.
      const creativeRow = page.locator('tr').filter({ hasText: 'Great offer' });
      expect(await creativeRow.locator('td[data-label="Impressions (7 days)"]').textContent()).toBe(
        count(row?.impressions ?? -1),
      );
      await page.screenshot({ path: `${SCREENS}numbers-campaign-${viewport.width}.png`, fullPage: true });
      expect(await axeProblems(page)).toEqual([]);
      await page.context().close();
    }, 120_000);
  }
});
