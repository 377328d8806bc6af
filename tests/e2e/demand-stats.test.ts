import type { ServedAd } from '@adnet/schemas/widget';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, useTestApp } from '@adnet/test-support/admin';
import type { Account } from '@adnet/test-support/admin';
import { eventually, startEngine } from '@adnet/test-support/engine';
import type { TestEngine } from '@adnet/test-support/engine';
import { ingestAll } from '@adnet/test-support/ingest-all';
import { MockDsp, bidFor } from '@adnet/test-support/mock-dsp';
import { World } from '@adnet/test-support/world';
import { runPayoutClose } from '@adnet/admin/payout-close';

// Money and statistics of the supply side (issue 19, item 5): a demand partner's counted impressions are
// publisher revenue at the clearing price with our campaigns' revenue share, in the statistics by `demand`
// (mock DSPs on real HTTP, the engine, the admin's ingester, chDB).
const SHARE = 70;
const fx = useTestApp(
  { DEMAND_ALLOW_LOOPBACK: '1', INGEST_FLUSH_MS: '100', PUBLISHER_REVENUE_SHARE_PERCENT: String(SHARE) },
  { clickhouse: true, parts: ['ingester'] },
);
let engine: TestEngine;
let world: World;
let adv: Account;
let publisher: Account;
let zone = '';
let bidding = true;
const today = new Date().toISOString().slice(0, 10);
const BROWSER = {
  'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/125.0 Safari/537.36',
  'accept-language': 'en-US,en;q=0.9',
  'x-country': 'US',
  referer: '',
};
// `buyer` bids $50 CPM, `runnerUp` $40: the buyer wins every auction at $40.01 (second price plus a cent).
const buyer: MockDsp = new MockDsp((r) =>
  bidding ? { delayMs: 10, body: bidFor(buyer, r, { price: 50, adm: '<div>BUYER</div>' }) } : { status: 204 },
);
const runnerUp: MockDsp = new MockDsp((r) =>
  bidding ? { delayMs: 20, body: bidFor(runnerUp, r, { price: 40, adm: '<div>RUNNER-UP</div>' }) } : { status: 204 },
);
const ids = { buyer: 0, runnerUp: 0 };
/** Partner impressions won and counted. */
const N = 6;
/** Our own campaign's impressions. */
const OWN = 2;
/** $40.01 CPM per impression in nano-dollars. */
const CLEARING_NANO = 40_010_000;

interface PubRow {
  demand: string;
  demand_name: string;
  impressions: number;
  earnings_cents: number;
}

async function imp(i: number) {
  const res = await fetch(`${engine.base}/imp?z=${zone}&fp=fp-${i}-${Math.random()}`, { headers: BROWSER });
  expect(res.status).toBe(200);
  return (await res.json()) as ServedAd & { demand?: { beacon_url: string } };
}

beforeAll(async () => {
  await Promise.all([buyer.start(), runnerUp.start()]);
  world = await World.create(fx.app);
  adv = await world.advertiser(100_000);
  await world.campaign(adv, { format: 'banner', bid_usd: 2 });
  const site = await world.site();
  publisher = site.publisher;
  BROWSER.referer = `https://www.${site.domain}/article`;
  zone = (await world.zone({ format: 'banner', banner_width: 300, banner_height: 250, floor_cpm_usd: 0.5 }, site))
    .subid;
  for (const [name, d] of [
    ['buyer', buyer],
    ['runnerUp', runnerUp],
  ] as const) {
    const r = await call<{ id: number }>(fx.app, 'POST', '/api/admin/demand-partners', {
      token: world.admin.token,
      json: { name: `DSP ${name}`, endpoint: `${d.base}/bid`, formats: ['banner'], qps_limit: 10_000, timeout_ms: 150 },
    });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    ids[name] = r.body.id;
  }
  engine = await startEngine(fx.redis.url, { DEMAND_ALLOW_LOOPBACK: '1' });
  await eventually(
    () => engine.engine.mirror.index?.demandPartners.length === 2 && engine.engine.mirror.index.candidateCount === 1,
  );
  await new Promise((r) => setTimeout(r, 300)); // first budget slices

  // N partner wins at once, each tracker called five times at once: counted once per auction.
  const won = await Promise.all(Array.from({ length: N }, (_, i) => imp(i)));
  const trackers = won.map((w) => w.demand?.beacon_url ?? '');
  expect(trackers.every((t) => t.includes('/openrtb/imptracker/d.'))).toBe(true);
  await Promise.all(trackers.flatMap((t) => Array.from({ length: 5 }, () => fetch(t))));
  // Then our own campaign, the partners passing: its ads rendered (their beacons) by the same viewer.
  bidding = false;
  for (let i = 0; i < OWN; i++) {
    const ad = await imp(100 + i);
    expect(ad.demand).toBeUndefined();
    expect((await fetch(ad.beacon_url, { headers: BROWSER })).status).toBeLessThan(300);
  }
  await ingestAll(fx.app, [engine.engine]);
  // Replayed trackers after ingestion: nothing more reaches the statistics.
  await Promise.all(trackers.map((t) => fetch(t)));
  await ingestAll(fx.app, [engine.engine]);
});
afterAll(async () => {
  await engine?.stop();
  await Promise.all([buyer.stop(), runnerUp.stop()]);
});

const pubStats = (groupBy: string, token = publisher.token) =>
  call<{ rows: PubRow[] }>(fx.app, 'GET', `/api/pub/stats?from=${today}&to=${today}&group_by=${groupBy}`, { token });

describe('publisher statistics by demand', () => {
  it("show the partner's impressions once each, earning the revenue share of its clearing price, beside our campaign's row", async () => {
    const r = await pubStats('demand');
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const partner = r.body.rows.find((row) => row.demand === String(ids.buyer));
    const own = r.body.rows.find((row) => row.demand === 'own');
    // 6 x $40.01 CPM = 240 060 000 nano-dollars; 70 % of it is 16.8 cents, 16 whole cents.
    expect(partner).toMatchObject({
      impressions: N,
      demand_name: 'DSP buyer',
      earnings_cents: Math.floor((N * CLEARING_NANO * SHARE) / 1e9),
    });
    expect(partner?.earnings_cents).toBe(16);
    expect(own).toMatchObject({ impressions: OWN, demand_name: '' });
    // The loser bought nothing: it has no row.
    expect(r.body.rows.map((row) => row.demand).sort()).toEqual([String(ids.buyer), 'own'].sort());
    // The partner's impressions carry the viewer and the placement as ours do.
    const viewer = await call<{ rows: (PubRow & { os: string; browser: string; geo: string })[] }>(
      fx.app,
      'GET',
      `/api/pub/stats?from=${today}&to=${today}&group_by=demand,geo,os,browser`,
      { token: publisher.token },
    );
    expect(viewer.body.rows.find((row) => row.demand === String(ids.buyer))).toMatchObject({
      impressions: N,
      geo: 'us',
      os: 'linux',
      browser: 'chrome',
    });
    // And the format as served, the zone's, as ours do.
    const byFormat = await pubStats('demand,format');
    expect(byFormat.body.rows.find((row) => row.demand === String(ids.buyer))).toMatchObject({
      impressions: N,
      format: 'banner',
    });
    // Without the dimension, the day's earnings are the sum of the two rows' spend (share taken once, rounded down once).
    const day = await pubStats('day');
    expect(day.body.rows[0]?.impressions).toBe(N + OWN);
    expect(day.body.rows[0]?.earnings_cents).toBeGreaterThanOrEqual(
      (partner?.earnings_cents ?? 0) + (own?.earnings_cents ?? 0),
    );
  });

  it("pay the partner's revenue out with the rest: the daily close moves exactly the day's earnings into the balance", async () => {
    const day = (await pubStats('day')).body.rows[0]?.earnings_cents ?? 0;
    expect(day).toBeGreaterThanOrEqual(16);
    // Past the hold period, today is closed.
    await runPayoutClose(fx.app.svc, Date.now() + 40 * 86_400_000);
    const b = await call<{ balance_cents: number; in_payouts_cents: number }>(fx.app, 'GET', '/api/pub/balance', {
      token: publisher.token,
    });
    expect(b.body.balance_cents + b.body.in_payouts_cents).toBe(day);
  });

  it("give admins the partner's row with what it paid, and the partner's name", async () => {
    const r = await call<{ rows: { demand: string; demand_name: string; impressions: number; spent_cents: number }[] }>(
      fx.app,
      'GET',
      `/api/admin/stats?from=${today}&to=${today}&group_by=demand`,
      { token: world.admin.token },
    );
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.rows.find((row) => row.demand === String(ids.buyer))).toMatchObject({
      impressions: N,
      demand_name: 'DSP buyer',
      spent_cents: Math.floor((N * CLEARING_NANO) / 1e7),
    });
    expect(r.body.rows.find((row) => row.demand === 'own')?.impressions).toBe(OWN);
  });

  it("give admins every partner's bid requests, bids, wins, timeouts and errors of the day, the loser's too", async () => {
    type Row = {
      demand: string;
      demand_name: string;
      impressions: number;
      bid_requests?: number;
      bids?: number;
      wins?: number;
      timeouts?: number;
      errors?: number;
    };
    const byDemand = async () =>
      (
        await call<{ rows: Row[] }>(fx.app, 'GET', `/api/admin/stats?from=${today}&to=${today}&group_by=day,demand`, {
          token: world.admin.token,
        })
      ).body.rows;
    // The engines add their counters every second.
    await eventually(
      async () => (await byDemand()).find((row) => row.demand === String(ids.runnerUp))?.bid_requests === N + OWN,
      5_000,
    );
    const rows = await byDemand();
    expect(rows.find((row) => row.demand === String(ids.buyer))).toMatchObject({
      impressions: N,
      bid_requests: N + OWN,
      bids: N,
      wins: N,
      timeouts: 0,
      errors: 0,
    });
    // Bid on every auction, won none: a row all the same.
    expect(rows.find((row) => row.demand === String(ids.runnerUp))).toMatchObject({
      demand_name: 'DSP runnerUp',
      impressions: 0,
      bids: N,
      wins: 0,
    });
    expect(rows.find((row) => row.demand === 'own')?.bid_requests).toBeUndefined();
    // Another time zone or grouping: the counters (kept per UTC day and partner) are left out rather than split wrongly.
    const other = await call<{ rows: Row[] }>(
      fx.app,
      'GET',
      `/api/admin/stats?from=${today}&to=${today}&group_by=demand,zone`,
      { token: world.admin.token },
    );
    expect(other.body.rows.every((row) => row.bid_requests === undefined)).toBe(true);
  });

  it('refuses the demand dimension to advertisers with a 400 naming group_by; their own statistics hold only their campaigns', async () => {
    const bad = await call<{ errors: Record<string, string> }>(
      fx.app,
      'GET',
      `/api/adv/stats?from=${today}&to=${today}&group_by=day,demand`,
      {
        token: adv.token,
      },
    );
    expect(bad.status).toBe(400);
    expect(Object.keys(bad.body.errors)).toEqual(['group_by']);
    const mine = await call<{ rows: { impressions: number }[] }>(
      fx.app,
      'GET',
      `/api/adv/stats?from=${today}&to=${today}`,
      { token: adv.token },
    );
    expect(mine.body.rows[0]?.impressions).toBe(OWN);
  });
});
