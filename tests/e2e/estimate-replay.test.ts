import type { ClickHouseClient } from '@clickhouse/client';
import { runImpAuction } from '@adnet/engine/run-auction';
import { candidateFixture, impFixture } from '@adnet/engine/auction-fixtures';
import type { Candidate } from '@adnet/engine/candidate';
import type { Estimate } from '@adnet/schemas/estimate';
import { cpmMicroCentsToNanoPerImpression, centsToNano, usdToCents, usdToMicroCents } from '@adnet/schemas/money';
import { xaddArgs } from '@adnet/schemas/wire/event-stream';
import { account, call, useTestApp } from '@adnet/test-support/admin';
import type { Account } from '@adnet/test-support/admin';
import { weekOfTraffic } from '@adnet/test-support/estimate-traffic';
import { ingestAll } from '@adnet/test-support/ingest-all';
import { World } from '@adnet/test-support/world';
import { beforeAll, describe, expect, it } from 'vitest';

// The estimate against the auction itself: a week of traffic is recorded into the event store as engines
// write it; a new campaign is estimated; then the recorded requests are read back from the raw events and
// replayed, in time order, through the engine's own auction (runImpAuction: ranking, second price plus one
// cent, the budget gate), each sold request's recorded winner bidding its winning price against the new
// campaign. The impressions the new campaign actually wins must be within 30 % of the estimate.

const fx = useTestApp({}, { clickhouse: true, parts: ['ingester'] });
let adv: Account;
let zoneId: number;

beforeAll(async () => {
  const world = await World.create(fx.app);
  adv = await account(fx.app, 'advertiser');
  const site = await world.site();
  const zone = await world.zone({ format: 'native' }, site);
  zoneId = zone.id;
  const events = weekOfTraffic({ zones: [{ id: zone.id, siteId: site.id }], perHour: 400, now: Date.now(), seed: 7 });
  for (let i = 0; i < events.length; i += 1000)
    await fx.app.svc.redis.xadd(...xaddArgs(events.slice(i, i + 1000), 10_000_000));
  await ingestAll(fx.app, []);
}, 180_000);

interface Recorded {
  type: string;
  reason: string;
  ts: string;
  country: string;
  device: string;
  zone_id: number;
  price_micro_cents: string;
}

/** The week's recorded requests of the zone and the exchange, as the raw events hold them, oldest first. */
async function recorded(): Promise<Recorded[]> {
  const ch = fx.app.svc.clickhouse as ClickHouseClient;
  const rows = await ch.query({
    query: `SELECT type, reason, toUnixTimestamp64Milli(ts) AS ts, country, device, zone_id, price_micro_cents
      FROM adnet.events WHERE type IN ('impression', 'bid', 'nobid') AND ts >= now() - INTERVAL 7 DAY ORDER BY ts`,
    format: 'JSONEachRow',
  });
  return rows.json<Recorded>();
}

interface Campaign {
  geo: string[];
  device: string;
  bidUsd: number;
  dailyBudgetUsd: number;
}

/** What the campaign wins, replayed through the real auction with its daily budget (UTC days, as spend is kept). */
function replay(traffic: readonly Recorded[], c: Campaign): number {
  const newcomer = candidateFixture({
    format: 'native',
    bid_micro_cents: usdToMicroCents(c.bidUsd),
    daily_budget_cents: usdToCents(c.dailyBudgetUsd),
  });
  const incumbents = new Map<number, Candidate>();
  const incumbent = (price: number): Candidate => {
    let found = incumbents.get(price);
    if (!found) incumbents.set(price, (found = candidateFixture({ format: 'native', bid_micro_cents: price })));
    return found;
  };
  const spentNano = new Map<number, number>();
  const budgetNano = centsToNano(usdToCents(c.dailyBudgetUsd));
  let day = 0;
  const gate = {
    tryTake: (winner: Candidate, price: number) => {
      if (winner !== newcomer) return true;
      const spent = spentNano.get(day) ?? 0;
      const cost = cpmMicroCentsToNanoPerImpression(price);
      if (spent + cost > budgetNano) return false;
      spentNano.set(day, spent + cost);
      return true;
    },
  };
  const picker = { pick: (siblings: readonly Candidate[]) => siblings[0] as Candidate };
  const ctx = impFixture({ floorMicroCents: 0 });
  let won = 0;
  for (const r of traffic) {
    if (r.type === 'nobid' && r.reason !== 'no_candidates') continue;
    if (!c.geo.includes(r.country) || r.device !== c.device) continue;
    day = Math.floor(Number(r.ts) / 86_400_000);
    const lists = r.type === 'nobid' ? [[newcomer]] : [[incumbent(Number(r.price_micro_cents))], [newcomer]];
    const out = runImpAuction(lists, ctx, [], gate, picker);
    if (out.won && out.winner === newcomer) won++;
  }
  return won / 7;
}

async function estimate(c: Campaign): Promise<Estimate> {
  const r = await call<Estimate>(fx.app, 'POST', '/api/adv/estimate', {
    token: adv.token,
    json: {
      format: 'native',
      geo_include: c.geo,
      device_types: [c.device],
      bid_type: 'cpm',
      bid_usd: c.bidUsd,
      daily_budget_usd: c.dailyBudgetUsd,
    },
  });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body;
}

describe('the traffic estimate against replayed traffic', () => {
  it.each([
    { case: 'a bid below the median price', geo: ['us', 'de'], device: 'mobile', bidUsd: 0.8, dailyBudgetUsd: 1000 },
    { case: 'a bid above most prices', geo: ['us'], device: 'desktop', bidUsd: 2.5, dailyBudgetUsd: 1000 },
    { case: 'a budget that binds', geo: ['us', 'de', 'fr'], device: 'mobile', bidUsd: 3, dailyBudgetUsd: 1 },
  ])("finds a new campaign's actual impressions within 30 % of its estimate: $case", async (c) => {
    const e = await estimate(c);
    const actual = replay(await recorded(), c);
    const error = (actual - e.impressions_per_day) / e.impressions_per_day;
    console.log(
      `estimate replay (${c.case}): estimated ${e.impressions_per_day}/day, replayed ${actual.toFixed(1)}/day, error ${(error * 100).toFixed(1)} %`,
    );
    const seen = JSON.stringify({ estimate: e, replayed: actual });
    expect(e.impressions_per_day, seen).toBeGreaterThan(50);
    expect(Math.abs(error), seen).toBeLessThan(0.3);
    expect(zoneId).toBeGreaterThan(0);
  });
});
