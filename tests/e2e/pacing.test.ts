import type { BidResponse } from '@adnet/schemas/openrtb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '@adnet/test-support/admin';
import { eventually, postBid, startEngine, streamedEvents } from '@adnet/test-support/engine';
import type { TestEngine } from '@adnet/test-support/engine';
import { World, bannerRequest } from '@adnet/test-support/world';

// Even pacing on a running engine: a campaign that spends far ahead of its even share of the day is
// throttled to a small share of its auctions (no-bid reason `pacing`); an asap campaign is not. The
// controller itself, over a simulated day, is engine/src/pacing/pacing-controller.test.ts.

const fx = useTestApp();
let engine: TestEngine;
const ids: Record<'even' | 'asap', number> = { even: 0, asap: 0 };

beforeAll(async () => {
  const world = await World.create(fx.app);
  await world.partner();
  const adv = await world.advertiser(1_000_000);
  ids.even = (
    await world.campaign(adv, { pacing: 'even', geo_include: ['de'], bid_usd: 5, daily_budget_usd: 1 })
  ).campaign.id;
  ids.asap = (
    await world.campaign(adv, { pacing: 'asap', geo_include: ['fr'], bid_usd: 5, daily_budget_usd: 1 })
  ).campaign.id;
  engine = await startEngine(fx.redis.url, { PACING_TICK_MS: '200' });
  await eventually(() => engine.engine.mirror.index?.candidateCount === 2);
}, 60_000);
afterAll(async () => {
  await engine.stop();
});

/** `n` bid requests from a country, each won bid's win notice sent at $5 CPM; the bids it got. */
async function auctions(country: string, n: number): Promise<number> {
  let bids = 0;
  for (let i = 0; i < n; i++) {
    // A $4 floor: our bid, and so the price, is $4-5 CPM.
    const r = await postBid(
      engine.base,
      bannerRequest({ id: `p-${country}-${i}-${Math.random()}`, device: { geo: { country } } }, { bidfloor: 4 }),
    );
    const bid = r.status === 200 ? (r.body as unknown as BidResponse).seatbid[0]?.bid[0] : undefined;
    if (!bid) continue;
    bids++;
    await fetch(bid.nurl.replace('${AUCTION_PRICE}', '5'));
  }
  return bids;
}

describe('even pacing', () => {
  it('throttles a campaign spending ahead of its even share of the day; asap keeps bidding', async () => {
    // $4-5 CPM is about half a cent an impression: every few wins overspend the even share of a dollar a day.
    await eventually(async () => (await auctions('DEU', 1)) === 1);
    await auctions('FRA', 50);
    // Steady traffic until the controller has found its level (it steps every 200 ms here).
    for (let i = 0; i < 60 && (engine.engine.mirror.index?.paces.get(ids.even)?.rate ?? 1) > 0.1; i++)
      await auctions('DEU', 20);
    expect(engine.engine.mirror.index?.paces.get(ids.even)?.rate).toBeLessThanOrEqual(0.1);
    expect(engine.engine.mirror.index?.paces.get(ids.asap)?.rate).toBe(1);
    const even = await auctions('DEU', 100);
    const asap = await auctions('FRA', 40);
    expect(even).toBeLessThan(40);
    expect(asap).toBe(40);
    await engine.engine.events.flush();
    const paced = (await streamedEvents(fx.app.svc.redis)).filter((e) => e.type === 'nobid' && e.reason === 'pacing');
    expect(paced.length).toBeGreaterThan(60);
  });
});
