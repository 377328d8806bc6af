import { demandDayKey } from '@adnet/schemas/demand';
import type { EngineEvent } from '@adnet/schemas/events';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { account, call } from '@adnet/test-support/admin';
import type { Account } from '@adnet/test-support/admin';
import { screenshot, signedIn, startProduct } from './product.ts';
import type { Product } from './product.ts';

// The cabinet's statistics by demand: the publisher's earnings split into our campaigns and each demand
// partner by name, and the admin's statistics with the partners' auction counters. The events go through
// the engine's event writer, the ingester and ClickHouse, as the engine's own would.
let p: Product;
let admin: Account;
let publisher: Account;
let partnerId = 0;
const today = new Date().toISOString().slice(0, 10);

/** Groups the page's statistics by `dims` alone and shows them. */
async function groupBy(page: Page, dims: string[]): Promise<void> {
  // The page's own first query (by day) is shown first, so it cannot land after ours.
  await page.getByText(/^Breakdown, /).waitFor();
  const form = page.getByRole('form', { name: 'Statistics query' });
  for (const box of await form.locator('input[name="group_by"]').all())
    await box.setChecked(dims.includes((await box.getAttribute('value')) ?? ''));
  await form.getByRole('button', { name: 'Show' }).click();
}

beforeAll(async () => {
  p = await startProduct();
  admin = await account(p.app, 'admin');
  publisher = await account(p.app, 'publisher');
  const r = await call<{ id: number }>(p.app, 'POST', '/api/admin/demand-partners', {
    token: admin.token,
    json: { name: 'DSP One', endpoint: 'https://dsp.example/bid', formats: ['banner'] },
  });
  expect(r.status).toBe(201);
  partnerId = r.body.id;
  const now = Date.now();
  const where = { publisher_id: publisher.id, site_id: 1, zone_id: 1, country: 'us', device: 'desktop' };
  const events: EngineEvent[] = [
    // Three partner impressions at $40.01 CPM, one of our campaign's at $10 CPM.
    ...[1, 2, 3].map((i): EngineEvent => ({
      id: `dmd-${i}`,
      type: 'demand_impression',
      ts: now,
      engine: 'e',
      ...where,
      demand_partner_id: partnerId,
      auction_id: `a${i}`,
      price_micro_cents: 4_001_000,
      charge_nano: 40_010_000,
    })),
    {
      id: 'own-1',
      type: 'impression',
      ts: now,
      engine: 'e',
      ...where,
      campaign_id: 1,
      creative_id: 1,
      advertiser_id: 999,
      bid_id: 'b',
      charge_nano: 10_000_000,
    },
  ];
  for (const e of events) p.engine.engine.events.push(e);
  await p.ingest();
  // What the engines counted for the partner today.
  await p.app.svc.redis.hset(demandDayKey(partnerId, today), {
    requests: 40,
    bids: 12,
    wins: 5,
    timeouts: 3,
    errors: 2,
  });
}, 90_000);
afterAll(async () => {
  await p?.stop();
});

describe('statistics by demand in the cabinet', () => {
  it("shows the publisher's earnings by who bought: our campaigns, and the partner by name", async () => {
    const pub = await signedIn(p, publisher, /\/cabinet\/overview$/);
    await pub.getByRole('link', { name: 'Earnings' }).click();
    await groupBy(pub, ['demand']);
    const partnerRow = pub.getByRole('row', { name: new RegExp(`DSP One \\(#${partnerId}\\)`) });
    await partnerRow.waitFor();
    // 3 x $0.04001 = 12.003 cents of spend, 70 % of it (the default share) rounded down: $0.08.
    expect(await partnerRow.getByRole('cell').allTextContents()).toContain('$0.08');
    await pub.getByRole('row', { name: /Our campaigns/ }).waitFor();
    await screenshot(pub, 'earnings-by-demand', ['DSP One', 'Our campaigns']);
  });

  it("shows the admin every partner's auction counters beside its impressions", async () => {
    const adm = await signedIn(p, admin, /\/cabinet\/overview$/);
    await adm.getByRole('link', { name: 'Statistics' }).click();
    await adm.getByLabel('Time zone').fill('UTC');
    await groupBy(adm, ['demand']);
    const partnerRow = adm.getByRole('row', { name: new RegExp(`DSP One \\(#${partnerId}\\)`) });
    await partnerRow.waitFor();
    await adm.getByRole('columnheader', { name: 'Bid requests' }).waitFor();
    const cells = await partnerRow.getByRole('cell').allTextContents();
    expect(cells).toEqual(expect.arrayContaining(['3', '40', '12', '5']));
    await screenshot(adm, 'admin-stats-by-demand', ['DSP One', 'Bid requests']);
  });
});
