import type { EngineEvent } from '@adnet/schemas/events';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { account } from '@adnet/test-support/admin';
import type { Account } from '@adnet/test-support/admin';
import { eventually } from '@adnet/test-support/engine';
import { startIngester } from '@adnet/test-support/ingest-all';
import { screenshot, signedIn, startProduct } from './product.ts';
import type { Product } from './product.ts';

// Statistics that lag the event stream: the product runs without its ingester, an event goes through the
// engine's event writer into the stream and waits there past STATS_LAG_NOTICE_MS (1.5 s here, 5 minutes by
// default); the cabinet's statistics views say the figures are behind, and stop saying so once an ingester
// has caught up.
let p: Product;
let advertiser: Account;
let publisher: Account;
const NOTICE = /^Statistics are about \d+ seconds behind: the newest events are not counted here yet\./;

beforeAll(async () => {
  p = await startProduct({ env: { STATS_LAG_NOTICE_MS: '1500' }, parts: ['video'] });
  advertiser = await account(p.app, 'advertiser');
  publisher = await account(p.app, 'publisher');
  const event: EngineEvent = {
    id: 'late-1',
    type: 'impression',
    ts: Date.now(),
    engine: p.engine.engine.id,
    publisher_id: publisher.id,
    site_id: 1,
    zone_id: 1,
    country: 'us',
    device: 'desktop',
    campaign_id: 1,
    creative_id: 1,
    advertiser_id: advertiser.id,
    bid_id: 'b-late',
    charge_nano: 10_000_000,
  };
  p.engine.engine.events.push(event);
  await p.engine.engine.events.flush();
  await eventually(() => p.app.svc.health.freshness().state === 'behind', 15_000);
}, 120_000);
afterAll(async () => {
  await p?.stop();
});

describe("the cabinet's notice of statistics behind the event stream", () => {
  it('is shown on the overview and the statistics, and goes once the statistics have caught up', async () => {
    const page = await signedIn(p, advertiser, /\/cabinet\/overview$/);
    await page.getByRole('status').filter({ hasText: NOTICE }).waitFor();
    await page.getByRole('link', { name: 'Statistics' }).click();
    await page.getByText(/^Breakdown, /).waitFor();
    const notice = page.getByRole('status').filter({ hasText: NOTICE });
    await notice.waitFor();
    await screenshot(page, 'statistics-behind', ['Statistics are about']);

    const ingester = await startIngester(p.app);
    try {
      await eventually(() => p.app.svc.health.freshness().state === 'current', 20_000);
    } finally {
      await ingester.stop();
    }
    await page.reload();
    await page.getByText(/^Breakdown, /).waitFor();
    // The figures now count the event: one impression.
    await page.getByRole('row', { name: /Total/ }).getByRole('cell', { name: '1', exact: true }).first().waitFor();
    expect(await notice.count()).toBe(0);
  }, 60_000);

  it("is shown on a publisher's earnings too", async () => {
    // Behind again: a new event waits, unread, past the threshold.
    const sent = Date.now();
    p.engine.engine.events.push({
      id: 'late-2',
      type: 'impression',
      ts: sent,
      engine: p.engine.engine.id,
      publisher_id: publisher.id,
      site_id: 1,
      zone_id: 1,
      country: 'us',
      device: 'desktop',
      campaign_id: 1,
      creative_id: 1,
      advertiser_id: advertiser.id,
      bid_id: 'b-late-2',
      charge_nano: 10_000_000,
    });
    await p.engine.engine.events.flush();
    await eventually(() => p.app.svc.health.freshness().state === 'behind', 15_000);
    const page = await signedIn(p, publisher, /\/cabinet\/overview$/);
    await page.getByRole('link', { name: 'Earnings' }).click();
    await page.getByRole('status').filter({ hasText: NOTICE }).waitFor();
  }, 60_000);
});
