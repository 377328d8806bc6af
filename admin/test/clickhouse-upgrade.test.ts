import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { EngineEvent } from '@adnet/schemas/events';
import { afterAll, expect, it } from 'vitest';
import { migrate, migrationSteps } from '../src/clickhouse/migrations.ts';
import { openClickHouse } from '../src/clickhouse/open.ts';
import { toRow } from '../src/ingest/event-rows.ts';
import { eventInsertSettings } from '../src/ingest/ingester.ts';

// An install that ran version 1 and holds events, upgraded by migrate() on embedded chDB: the new
// columns and tables get their past from the raw events, and new events count once from then on.
const dir = mkdtempSync(join(tmpdir(), 'adnet-ch-upgrade-'));
const clickhouse = await openClickHouse(undefined, dir);
afterAll(async () => {
  await clickhouse.close();
  rmSync(dir, { recursive: true, force: true });
});

const o = { database: 'upg', eventTtlDays: 90 };
let n = 0;
const ad = {
  campaign_id: 5,
  creative_id: 6,
  advertiser_id: 7,
  publisher_id: 8,
  site_id: 9,
  zone_id: 10,
  bid_id: 'b',
  country: 'us',
  device: 'desktop',
  os: 'windows',
  browser: 'edge',
  source: 'news.example',
};
const at = Date.parse('2026-11-20T10:15:00Z');
const batch = (): EngineEvent[] => [
  { ...ad, id: `e${++n}`, type: 'impression', ts: at, engine: 'e', charge_nano: 10_000 },
  { ...ad, id: `e${++n}`, type: 'viewable', ts: at, engine: 'e' },
  {
    id: `e${++n}`,
    type: 'nobid',
    ts: at,
    engine: 'e',
    reason: 'foreign_origin',
    publisher_id: 8,
    site_id: 9,
    zone_id: 10,
  },
  {
    id: `e${++n}`,
    type: 'nobid',
    ts: at,
    engine: 'e',
    reason: 'no_candidates',
    publisher_id: 8,
    site_id: 9,
    zone_id: 10,
  },
  {
    ...ad,
    id: `e${++n}`,
    type: 'click',
    ts: at,
    engine: 'e',
    click_id: 'c',
    charge_nano: 0,
    invalid: true,
    reason: 'too_fast',
  },
  {
    id: `e${++n}`,
    type: 'fallback',
    ts: at,
    engine: 'e',
    reason: 'no_candidates',
    publisher_id: 8,
    site_id: 9,
    zone_id: 10,
  },
];
const insert = (events: EngineEvent[], token: string) =>
  clickhouse.insert({
    table: 'upg.events',
    values: events.map(toRow),
    format: 'JSONEachRow',
    clickhouse_settings: eventInsertSettings(token, false),
  });
/** A store that ran the first `version` steps and holds them in schema_migrations, as an install of that version did. */
async function storeAt(version: number) {
  const o = { database: `upg${version}`, eventTtlDays: 90 };
  const plan = migrationSteps(o);
  for (const query of [...plan.setup, ...plan.steps.slice(0, version).flat()]) await clickhouse.command({ query });
  await clickhouse.insert({
    table: `${o.database}.schema_migrations`,
    values: plan.steps.slice(0, version).map((_, i) => ({ version: i + 1 })),
    format: 'JSONEachRow',
  });
  const insert = (events: EngineEvent[], token: string) =>
    clickhouse.insert({
      table: `${o.database}.events`,
      values: events.map(toRow),
      format: 'JSONEachRow',
      clickhouse_settings: eventInsertSettings(token, false),
    });
  return { o, plan, insert };
}
const all = async (query: string) =>
  (await clickhouse.query({ query, format: 'JSONEachRow' })).json<Record<string, string | number>>();
const one = async (query: string) =>
  (await (await clickhouse.query({ query, format: 'JSONEachRow' })).json<Record<string, string | number>>())[0] ?? {};

it('upgrades a version 1 store in place, filling in what its events already say, and counts new events once', async () => {
  const plan = migrationSteps(o);
  for (const query of [...plan.setup, ...(plan.steps[0] ?? [])]) await clickhouse.command({ query });
  await clickhouse.insert({ table: 'upg.schema_migrations', values: [{ version: 1 }], format: 'JSONEachRow' });
  await insert(batch(), 'before');

  expect(await migrate(clickhouse, o)).toEqual(plan.steps.map((_, i) => i + 1).slice(1));
  expect(await migrate(clickhouse, o)).toEqual([]);
  await insert(batch(), 'after');
  await insert(
    batch().map((e, i) => ({ ...e, id: `retried-${i}` })),
    'after',
  ); // a retried batch: same token, nothing added

  const hourly = await one(
    'SELECT sum(impressions) AS i, sum(viewable_impressions) AS v, sum(invalid_clicks) AS x, sum(fallbacks) AS f FROM upg.stats_hourly',
  );
  // Fallbacks count from the step that added them: the events before it had no column to be counted in.
  expect(hourly).toEqual({ i: 2, v: 2, x: 2, f: 1 });
  const uncounted = await one(
    "SELECT sumIf(events, of = 'request' AND reason = 'foreign_origin') AS r, sumIf(events, of = 'click') AS c, sumIf(events, reason = 'no_candidates') AS fill FROM upg.uncounted_hourly",
  );
  expect(uncounted).toEqual({ r: 2, c: 2, fill: 0 });
  // Events before step 3 had no OS or browser (the version 1 table dropped them); those after are summed by them.
  const byOs = await (
    await clickhouse.query({
      query: 'SELECT os, browser, sum(impressions) AS i FROM upg.stats_hourly GROUP BY os, browser ORDER BY os',
      format: 'JSONEachRow',
    })
  ).json();
  expect(byOs).toEqual([
    { os: '', browser: '', i: 1 },
    { os: 'windows', browser: 'edge', i: 1 },
  ]);
  // Likewise the source (step 5): the placement report splits the same impressions, clicks and spend by it.
  const bySource = await all(
    'SELECT source, sum(impressions) AS i, sum(invalid_clicks) AS x, sum(spent_nano) AS s FROM upg.stats_hourly WHERE advertiser_id != 0 GROUP BY source ORDER BY source',
  );
  expect(bySource).toEqual([
    { source: '', i: 1, x: 1, s: 10_000 },
    { source: 'news.example', i: 1, x: 1, s: 10_000 },
  ]);
  expect(await one("SELECT count() AS n FROM upg.events WHERE source = 'news.example'")).toEqual({ n: 3 });
});

it('upgrades a version 4 store (fallbacks already counted) to the source dimension (and on) without losing a column', async () => {
  const { o: o4, plan, insert: to4 } = await storeAt(4);
  await to4(batch(), 'before');
  expect(await migrate(clickhouse, o4)).toEqual(plan.steps.map((_, i) => i + 1).slice(4));
  await to4(batch(), 'after');
  const rows = await all(
    'SELECT source, sum(impressions) AS i, sum(viewable_impressions) AS v, sum(invalid_clicks) AS x, sum(fallbacks) AS f, sum(spent_nano) AS s FROM upg4.stats_hourly GROUP BY source ORDER BY source',
  );
  // Before: no source column (the fallback too); after: every count, fallbacks included, under its source.
  expect(rows).toEqual([
    { source: '', i: 1, v: 1, x: 1, f: 2, s: 10_000 },
    { source: 'news.example', i: 1, v: 1, x: 1, f: 0, s: 10_000 },
  ]);
});

it("upgrades a version 5 store to the demand dimension: rows before are our campaigns', a partner's impressions count and pay under its id", async () => {
  const { o: o5, plan, insert: to5 } = await storeAt(5);
  await to5(batch(), 'before');
  expect(await migrate(clickhouse, o5)).toEqual(plan.steps.map((_, i) => i + 1).slice(5));
  const bought: EngineEvent = {
    id: `e${++n}`,
    type: 'demand_impression',
    ts: at,
    engine: 'e',
    publisher_id: 8,
    site_id: 9,
    zone_id: 10,
    demand_partner_id: 3,
    auction_id: 'a',
    price_micro_cents: 4_001_000,
    charge_nano: 40_010_000,
  };
  const after = [...batch(), bought];
  await to5(after, 'after');
  // The very batch again, with its token: counted once.
  await to5(after, 'after');
  const rows = await all(
    'SELECT demand_partner_id AS d, advertiser_id AS a, sum(impressions) AS i, sum(fallbacks) AS f, sum(spent_nano) AS s FROM upg5.stats_hourly WHERE publisher_id = 8 GROUP BY d, a ORDER BY d, a',
  );
  expect(rows).toEqual([
    // Our campaigns' and the fallbacks' rows, before and after the upgrade alike.
    { d: 0, a: 0, i: 0, f: 2, s: 0 },
    { d: 0, a: 7, i: 2, f: 0, s: 20_000 },
    { d: 3, a: 0, i: 1, f: 0, s: 40_010_000 },
  ]);
});

it('upgrades a version 6 store to count unfilled requests: valid no-bids of our zones, not invalid traffic, not the exchange', async () => {
  const { o: o6, plan, insert: to6 } = await storeAt(6);
  await to6(batch(), 'before');
  expect(await migrate(clickhouse, o6)).toEqual(plan.steps.map((_, i) => i + 1).slice(6));
  const exchange: EngineEvent = {
    id: `e${++n}`,
    type: 'nobid',
    ts: at,
    engine: 'e',
    reason: 'below_floor',
    publisher_id: 0,
    site_id: 0,
    zone_id: 0,
  };
  const after = [...batch(), exchange];
  await to6(after, 'after');
  await to6(after, 'after');
  const rows = await all(
    'SELECT zone_id AS z, sum(impressions) AS i, sum(fallbacks) AS f, sum(unfilled) AS u, sum(spent_nano) AS s FROM upg6.stats_hourly GROUP BY z ORDER BY z',
  );
  // Before the upgrade nothing counted the unfilled; after, the one valid no-bid of zone 10 does, once.
  expect(rows).toEqual([{ z: 10, i: 2, f: 2, u: 1, s: 20_000 }]);
});

it('upgrades a version 7 store to the integration dimension: rows before have none, an OpenRTB event without one is OpenRTB', async () => {
  const { o: o7, plan, insert: to7 } = await storeAt(7);
  const impression = (integration: EngineEvent['integration']): EngineEvent => ({
    ...ad,
    id: `e${++n}`,
    type: 'impression',
    ts: at,
    engine: 'e',
    charge_nano: 10_000,
    integration,
  });
  await to7([impression('widget')], 'before');
  expect(await migrate(clickhouse, o7)).toEqual(plan.steps.map((_, i) => i + 1).slice(7));
  const win: EngineEvent = {
    ...ad,
    id: `e${++n}`,
    type: 'win',
    ts: at,
    engine: 'e',
    partner_id: 3,
    price_micro_cents: 100_000,
    charge_nano: 1_000,
  };
  // A stream entry naming something else: kept, under no integration rather than a new one.
  const forged = { ...impression(undefined), integration: 'evil' } as unknown as EngineEvent;
  const after = [impression('widget'), impression('prebid'), impression('prebid'), win, forged];
  await to7(after, 'after');
  await to7(after, 'after');
  const rows = await all(
    'SELECT integration AS k, sum(impressions) AS i, sum(spent_nano) AS s FROM upg7.stats_hourly GROUP BY k ORDER BY k',
  );
  expect(rows).toEqual([
    // The impression summed before the upgrade, and the forged one.
    { k: '', i: 2, s: 20_000 },
    { k: 'openrtb', i: 1, s: 1_000 },
    { k: 'prebid', i: 2, s: 20_000 },
    { k: 'widget', i: 1, s: 10_000 },
  ]);
});

it("upgrades a version 8 store to the advertiser's revenue: approved conversions' payouts summed once, none for the past", async () => {
  const { o: o8, plan, insert: to8 } = await storeAt(8);
  const converted = (payout: number): EngineEvent => ({
    ...ad,
    id: `e${++n}`,
    type: 'conversion',
    ts: at,
    engine: 'admin',
    payout_cents: payout,
  });
  // Before the upgrade the table has no payout column: the conversion counts, its payout is lost.
  await to8([...batch(), converted(500)], 'before');
  expect(await migrate(clickhouse, o8)).toEqual(plan.steps.map((_, i) => i + 1).slice(8));
  const after = [...batch(), converted(1250), converted(250)];
  await to8(after, 'after');
  await to8(after, 'after');
  const rows = await all(
    'SELECT sum(conversions) AS c, sum(revenue_cents) AS r, sum(spent_nano) AS s, sum(impressions) AS i FROM upg8.stats_hourly WHERE advertiser_id = 7',
  );
  expect(rows).toEqual([{ c: 3, r: 1500, s: 20_000, i: 2 }]);
});

it("upgrades a version 9 store to the estimate's inventory: the past week's requests and winning prices, each once", async () => {
  const { o: o9, plan, insert: to9 } = await storeAt(9);
  // The estimate keeps a week: these are from yesterday, the ones of \`batch()\` from long before.
  const recent = Date.now() - 86_400_000;
  const week = (): EngineEvent[] => [
    ...batch(),
    {
      ...ad,
      id: `e${++n}`,
      type: 'impression',
      ts: recent,
      engine: 'e',
      price_micro_cents: 150_000,
      charge_nano: 1_500_000,
    },
    // Counted by the VAST pixel, which carries no price: its charge says it (1.20 USD CPM).
    { ...ad, id: `e${++n}`, type: 'impression', ts: recent, engine: 'e', charge_nano: 1_200_000 },
    {
      ...ad,
      id: `e${++n}`,
      type: 'bid',
      ts: recent,
      engine: 'e',
      zone_id: 0,
      site_id: 0,
      auction_id: 'a',
      imp_id: '1',
      partner_id: 2,
      price_micro_cents: 90_000,
    },
    {
      id: `e${++n}`,
      type: 'nobid',
      ts: recent,
      engine: 'e',
      reason: 'no_candidates',
      zone_id: 10,
      site_id: 9,
      country: 'us',
    },
    {
      id: `e${++n}`,
      type: 'nobid',
      ts: recent,
      engine: 'e',
      reason: 'bot_traffic',
      zone_id: 10,
      site_id: 9,
      country: 'us',
    },
    { id: `e${++n}`, type: 'nobid', ts: recent, engine: 'e', reason: 'zone_not_serving', zone_id: 10, site_id: 9 },
    { ...ad, id: `e${++n}`, type: 'viewable', ts: recent, engine: 'e' },
  ];
  await to9(week(), 'before');
  expect(await migrate(clickhouse, o9)).toEqual(plan.steps.map((_, i) => i + 1).slice(9));
  const after = week();
  await to9(after, 'after');
  await to9(after, 'after');
  const sums = await one(
    'SELECT sum(requests) AS r, sum(sold) AS s, sum(sold_micro_cents) AS m, countIf(price_bucket = 0 AND sold = 0) AS unsoldRows FROM upg9.estimate_hourly FINAL',
  );
  // Per week(): 4 requests (two impressions, our bid, one valid no-bid), 3 sold for 1.50 + 1.20 + 0.90 USD CPM;
  // the backfill counted the first week() once and the view the second once; batch()'s old events are past the window.
  expect(sums).toEqual({ r: 8, s: 6, m: 2 * 360_000, unsoldRows: 1 });
  const buckets = await (
    await clickhouse.query({
      query: 'SELECT price_bucket AS b, sum(sold) AS s FROM upg9.estimate_hourly WHERE sold > 0 GROUP BY b ORDER BY b',
      format: 'JSONEachRow',
    })
  ).json<{ b: number; s: number }>();
  // Three prices, three 2 % buckets, in price order.
  expect(buckets.map((r) => r.s)).toEqual([2, 2, 2]);
  expect(buckets.map((r) => r.b)).toEqual(
    [90_000, 120_000, 150_000].map((p) => 1 + Math.floor(Math.log(p) / Math.log(1.02))),
  );
});

it('upgrades a version 10 store to the format dimension: rows before have none, an unknown name is kept under none', async () => {
  const { o: o10, plan, insert: to10 } = await storeAt(10);
  const impression = (format: EngineEvent['format']): EngineEvent => ({
    ...ad,
    id: `e${++n}`,
    type: 'impression',
    ts: at,
    engine: 'e',
    charge_nano: 10_000,
    integration: 'widget',
    format,
  });
  await to10([impression('banner')], 'before');
  expect(await migrate(clickhouse, o10)).toEqual(plan.steps.map((_, i) => i + 1).slice(10));
  const forged = { ...impression(undefined), format: 'evil' } as unknown as EngineEvent;
  const noBid: EngineEvent = {
    id: `e${++n}`,
    type: 'nobid',
    ts: at,
    engine: 'e',
    reason: 'no_candidates',
    publisher_id: 8,
    site_id: 9,
    zone_id: 10,
    format: 'interstitial',
  };
  const after = [impression('banner'), impression('interstitial'), impression('interstitial'), forged, noBid];
  await to10(after, 'after');
  await to10(after, 'after');
  const rows = await all(
    'SELECT ad_format AS k, sum(impressions) AS i, sum(unfilled) AS u, sum(spent_nano) AS s FROM upg10.stats_hourly GROUP BY k ORDER BY k',
  );
  expect(rows).toEqual([
    // The impression summed before the upgrade, and the forged one.
    { k: '', i: 2, u: 0, s: 20_000 },
    { k: 'banner', i: 1, u: 0, s: 10_000 },
    { k: 'interstitial', i: 2, u: 1, s: 20_000 },
  ]);
});
