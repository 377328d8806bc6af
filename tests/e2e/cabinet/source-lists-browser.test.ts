import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from '@adnet/test-support/admin';
import type { Account } from '@adnet/test-support/admin';
import { eventually } from '@adnet/test-support/engine';
import { World } from '@adnet/test-support/world';
import { screenshot, sessionPage, startProduct, useSession } from './product.ts';
import type { Product } from './product.ts';

// An advertiser's traffic sources in a real browser: many zones and sites pasted at once, unknown ones
// kept and shown as warnings, an entry removed, bid adjustments with the API's message beside the field,
// and a zone excluded in one click from the statistics breakdown, after which it gets no ad.

let p: Product;
let world: World;
let adv: Account;
let page: Page;
let campaignId: number;
let site: Awaited<ReturnType<World['site']>>;
const zones: Record<string, { id: number; subid: string }> = {};
const BROWSER = {
  'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/125.0 Safari/537.36',
  'x-country': 'de',
};

interface Sources {
  mode: string;
  zones: string[];
  sites: number[];
}
const sources = async () =>
  (await call<{ sources: Sources }>(p.app, 'GET', `/api/adv/campaigns/${campaignId}`, { token: adv.token })).body
    .sources;
const imp = (subid: string) =>
  fetch(`${p.base}/imp?z=${subid}&fp=fp-${Math.random().toString(36).slice(2)}&s=e30`, { headers: BROWSER });

beforeAll(async () => {
  p = await startProduct();
  world = await World.create(p.app);
  site = await world.site();
  for (const name of ['pasted', 'reported'])
    zones[name] = await world.zone({ format: 'banner', banner_width: 300, banner_height: 250 }, site);
  adv = await world.advertiser(100_000);
  campaignId = (await world.campaign(adv, { name: 'Lists' })).campaign.id;
  const reported = (zones.reported as { subid: string }).subid;
  await eventually(
    () =>
      p.engine.engine.mirror.index?.zones.get(reported)?.serving === true &&
      p.engine.engine.mirror.index.candidateCount === 1,
    10_000,
  );
  await new Promise((r) => setTimeout(r, 300)); // first budget slices
  // Traffic on the zone the report will show: one rendered ad.
  const served = (await (await imp(reported)).json()) as { beacon_url: string };
  await fetch(served.beacon_url, { headers: BROWSER });
  await p.ingest();
  page = await sessionPage(p, adv.token);
}, 90_000);
afterAll(async () => {
  await p?.stop();
});

describe('traffic sources in the cabinet', () => {
  it('pastes many zones and sites at once, shows the unknown ones as warnings, removes one', async () => {
    await page.goto(`${p.base}/cabinet/campaigns/${campaignId}`);
    const form = page.getByRole('form', { name: 'Traffic sources' });
    const pasted = (zones.pasted as { subid: string }).subid;
    await form.getByLabel('Zones (subids)').fill(`${pasted}\nghostzone1, ghostzone2\n`);
    await form.getByLabel('Sites (ids)').fill('424242\n');
    await form.getByRole('button', { name: 'Add to list' }).click();
    const warnings = page.locator('#traffic-sources > .warnings');
    await warnings.getByText('ghostzone1, ghostzone2').waitFor();
    await warnings.getByText('424242').waitFor();
    expect(await warnings.textContent()).not.toContain(pasted);
    expect(await sources()).toEqual({ mode: 'exclude', zones: [pasted, 'ghostzone1', 'ghostzone2'], sites: [424242] });
    await screenshot(page, 'traffic-sources', [
      'Traffic sources',
      'Exclude list: never serves on 3 zone(s) and 1 site(s)',
      'ghostzone1',
    ]);
    await page.getByRole('button', { name: 'Remove zone ghostzone2' }).click();
    await page.getByText('Exclude list: never serves on 2 zone(s) and 1 site(s)').waitFor();
    expect((await sources()).zones).toEqual([pasted, 'ghostzone1']);
  });

  it('picks a site it ran on by its domain, and names list entries by domain', async () => {
    const form = page.getByRole('form', { name: 'Traffic sources' });
    const reported = (zones.reported as { subid: string }).subid;
    const search = form.getByLabel('Sites and zones your campaigns ran on (last 30 days)');
    await search.fill(site.domain.slice(0, 8).toUpperCase());
    const siteBox = form.getByRole('checkbox', { name: `${site.domain} (site ${site.id})` });
    await form.getByRole('checkbox', { name: `zone ${reported} on ${site.domain}` }).waitFor();
    await search.fill('no-such-domain');
    await form.getByText('Nothing matches').waitFor();
    expect(await siteBox.isVisible()).toBe(false);
    await search.fill(site.domain);
    await siteBox.check();
    await form.getByText(`Chosen (1): ${site.domain} (site ${site.id})`).waitFor();
    await form.getByRole('button', { name: 'Add to list' }).click();
    await page.getByText('Exclude list: never serves on 2 zone(s) and 2 site(s)').waitFor();
    expect((await sources()).sites).toEqual([424242, site.id]);
    await page.getByRole('button', { name: `Remove ${site.domain} (site ${site.id})` }).click();
    await page.getByText('Exclude list: never serves on 2 zone(s) and 1 site(s)').waitFor();
    expect((await sources()).sites).toEqual([424242]);
  });

  it("names a bad entry beside its field, in the API's words", async () => {
    const form = page.getByRole('form', { name: 'Traffic sources' });
    await form.getByLabel('Zones (subids)').fill('not-a-subid!');
    await form.getByRole('button', { name: 'Add to list' }).click();
    await form
      .locator('[data-field="zones"] .field-error')
      .getByText(/must be a zone subid/)
      .waitFor();
    // Bid adjustments are added with separate fields, not typed as a line of text.
    const adjust = page.getByRole('form', { name: 'Add a bid adjustment' });
    await adjust.getByLabel('Applies to').selectOption('zone');
    await adjust.getByLabel('Country code, site id or zone subid').fill('ghostzone1');
    await adjust.getByLabel('Multiplier (0.1-10)').fill('2');
    await adjust.getByRole('button', { name: 'Add adjustment' }).click();
    await page.locator('#bid-adjustments .warnings').getByText('zone ghostzone1').waitFor();
    const again = page.getByRole('form', { name: 'Add a bid adjustment' });
    await again.getByLabel('Applies to').selectOption('country');
    await again.getByLabel('Country code, site id or zone subid').fill('de');
    await again.getByLabel('Multiplier (0.1-10)').fill('0.05');
    await again.getByRole('button', { name: 'Add adjustment' }).click();
    await again
      .locator('[data-field="multiplier"] .field-error')
      .getByText(/at least 0.1/)
      .waitFor();
    await again.getByLabel('Multiplier (0.1-10)').fill('0.5');
    await again.getByRole('button', { name: 'Add adjustment' }).click();
    await page.getByRole('button', { name: 'Remove the adjustment for Germany (DE)' }).waitFor();
    const c = await call<{ bid_adjustments: unknown[] }>(p.app, 'GET', `/api/adv/campaigns/${campaignId}`, {
      token: adv.token,
    });
    expect(c.body.bid_adjustments).toEqual([
      { zone: 'ghostzone1', multiplier: 2 },
      { country: 'de', multiplier: 0.5 },
    ]);
  });

  it('fits a phone-sized screen, warnings of long lists included', async () => {
    const phone = await p.newContext({ width: 375, height: 740 });
    await useSession(phone, p.base, adv.token);
    const small = await phone.newPage();
    await small.goto(`${p.base}/cabinet/campaigns/${campaignId}`);
    const form = small.getByRole('form', { name: 'Traffic sources' });
    await form.getByLabel('Zones (subids)').fill(Array.from({ length: 300 }, (_, i) => `longghostzone${i}`).join('\n'));
    await form.getByRole('button', { name: 'Add to list' }).click();
    await small.locator('#traffic-sources > .warnings').getByText('and 250 more').waitFor();
    expect(await small.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(375);
    await small.getByText('First 200 of 303 entries').waitFor();
    await phone.close();
    await call(p.app, 'POST', `/api/adv/campaigns/${campaignId}/sources/remove`, {
      token: adv.token,
      json: { zones: Array.from({ length: 300 }, (_, i) => `longghostzone${i}`) },
    });
  });

  it('excludes a zone in one click from the statistics breakdown; the zone then gets no ad from the campaign', async () => {
    const reported = zones.reported as { subid: string };
    expect((await imp(reported.subid)).status).toBe(200);
    await page.getByRole('link', { name: 'Statistics' }).click();
    const f = page.getByRole('form', { name: 'Statistics query' });
    await f.getByLabel('day').uncheck();
    await f.getByLabel('zone', { exact: true }).check();
    await f.getByRole('button', { name: 'Show' }).click();
    await page.getByRole('columnheader', { name: 'Traffic source list' }).waitFor();
    await page.getByLabel('Exclude / Include applies to campaign').selectOption({ label: 'Lists' });
    // Named by where it shows ads, not by a number the advertiser never saw.
    await page.getByRole('button', { name: `Exclude zone ${reported.subid} on ${site.domain}` }).click();
    await page.getByText(`Excluded zone ${reported.subid} on ${site.domain} for Lists`).waitFor();
    await screenshot(page, 'stats-exclude', [
      'Traffic source list',
      `Excluded zone ${reported.subid} on ${site.domain}`,
    ]);
    expect((await sources()).zones).toContain(reported.subid);
    // By site: the site's domain, its id beside it.
    await f.getByLabel('zone', { exact: true }).uncheck();
    await f.getByLabel('site', { exact: true }).check();
    await f.getByRole('button', { name: 'Show' }).click();
    await page.getByRole('button', { name: `Include ${site.domain} (site ${site.id})` }).waitFor();
    await page.getByRole('cell', { name: `${site.domain} (#${site.id})`, exact: true }).waitFor();
    expect(await page.getByRole('button', { name: /^Exclude site \d+$/ }).count()).toBe(0);
    await eventually(async () => (await imp(reported.subid)).status === 204, 10_000);
  });
});
