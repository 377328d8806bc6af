import { demandDayKey } from '@adnet/schemas/demand';
import { campaignPoolKey, CFG_LOG, EVENT_STREAM, rotationCountsKey } from '@adnet/schemas/redis-keys';
import { statsQuerySchema } from '@adnet/schemas/stats';
import { readDailyCounters } from '@adnet/admin/demand-counters';
import { Pacer } from '@adnet/engine/pacer';
import { CreativeRotation } from '@adnet/engine/creative-rotation';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Ingester } from '@adnet/admin/ingester';
import { call, startApp } from '@adnet/test-support/admin';
import type { TestApp } from '@adnet/test-support/admin';
import { startRedisCluster } from '@adnet/test-support/redis-cluster';
import type { TestRedisCluster } from '@adnet/test-support/redis-cluster';
import { drainBudget } from '@adnet/test-support/budget-drain';
import { eventually, startEngine } from '@adnet/test-support/engine';
import type { TestEngine } from '@adnet/test-support/engine';
import { World } from '@adnet/test-support/world';

// The admin, two engines and the ingester on a real three-master Redis Cluster (one replica each).
let cluster: TestRedisCluster;
let app: TestApp;
let world: World;
let engines: TestEngine[];
let ingester: Ingester;
const SLICE_CENTS = 10;

beforeAll(async () => {
  cluster = await startRedisCluster(3);
  // The admin runs its ingester as `pnpm start` does; TEST_ENGINE_LOG=warn shows its warnings.
  const env = { INGEST_FLUSH_MS: '100', LOG_LEVEL: process.env.TEST_ENGINE_LOG === 'warn' ? 'warn' : 'silent' };
  app = await startApp(cluster.url, env, { clickhouse: true, parts: ['ingester'] });
  if (!app.admin.ingester) throw new Error('the admin runs no ingester');
  ingester = app.admin.ingester;
  world = await World.create(app);
  await world.partner();
  engines = await Promise.all([0, 1].map(() => startEngine(cluster.url, { BUDGET_SLICE_CENTS: String(SLICE_CENTS) })));
}, 90_000);
afterAll(async () => {
  await Promise.all((engines ?? []).map((e) => e.stop()));
  await app?.close();
  await cluster?.stop();
}, 60_000);

const activeEverywhere = (campaignId: number) =>
  Promise.all(
    engines.map((e) => eventually(() => e.engine.mirror.index?.campaigns.get(campaignId)?.status === 'active', 15_000)),
  );

/** Events of one campaign in ClickHouse, by type, once the engines flushed and the ingester caught up. */
async function eventsInClickHouse(campaignId: number): Promise<Record<string, number>> {
  await Promise.all(engines.map((e) => e.engine.events.flush()));
  let last: unknown;
  await eventually(async () => {
    const bl = await ingester.backlog();
    last = { ...bl, engines: engines.map((e) => e.engine.events.backlog) };
    return bl.lag === 0 && bl.pending === 0;
  }, 30_000).catch((err: unknown) => {
    throw new Error(`ingester did not catch up: ${JSON.stringify(last)}`, { cause: err });
  });
  const rows = await (
    await (app.svc.clickhouse as NonNullable<typeof app.svc.clickhouse>).query({
      query: 'SELECT type, count() AS n FROM adnet.events WHERE campaign_id = {id:UInt32} GROUP BY type',
      query_params: { id: campaignId },
      format: 'JSONEachRow',
    })
  ).json<{ type: string; n: number | string }>();
  return Object.fromEntries(rows.map((r) => [r.type, Number(r.n)]));
}

async function spentNano(campaignId: number): Promise<number> {
  return Number(await app.svc.redis.hget(campaignPoolKey(campaignId, new Date().toISOString().slice(0, 10)), 'spent'));
}

describe('on a Redis Cluster', () => {
  it('spreads the keys over the masters: config, budgets and events live on different shards', async () => {
    const owners = new Set(
      await Promise.all(
        [CFG_LOG, EVENT_STREAM, campaignPoolKey(1, '2026-01-01'), '{adv:1}:balance', '{users}:email'].map(
          async (k) => (await cluster.ownerOf(k)).master,
        ),
      ),
    );
    expect(owners.size).toBeGreaterThan(1);
  });

  it('syncs config to both engines, holds a budget across them and streams every event into ClickHouse exactly once', async () => {
    const adv = await world.advertiser(1_000_000);
    const { campaign } = await world.campaign(adv, { geo_include: ['au'], daily_budget_usd: 1, bid_usd: 6 });
    await activeEverywhere(campaign.id);
    const { wins, nobidsAfter } = await drainBudget(engines, 'AUS');
    expect(nobidsAfter).toBe(40);
    // $1 at 0.5 cents an impression: 200 at most, less at most the two engines' unspent slices.
    expect(wins).toBeGreaterThanOrEqual(200 - (2 * SLICE_CENTS) / 0.5);
    expect(wins).toBeLessThanOrEqual(200);
    expect(await spentNano(campaign.id)).toBe(wins * 5_000_000);
    const bal = await call<{ balance_cents: number }>(app, 'GET', '/api/adv/balance', { token: adv.token });
    expect(bal.body.balance_cents).toBe(1_000_000 - Math.floor(wins * 0.5));
    // Every bid was won: as many bid and win events as wins, each stored once.
    expect(await eventsInClickHouse(campaign.id)).toEqual({ bid: wins, win: wins });

    // A pause reaches both engines; they stop bidding for it.
    await call(app, 'POST', `/api/adv/campaigns/${campaign.id}/pause`, { token: adv.token });
    await Promise.all(
      engines.map((e) =>
        eventually(() => e.engine.mirror.index?.campaigns.get(campaign.id)?.status === 'paused', 15_000),
      ),
    );
  }, 90_000);

  it("runs the rotation's refresh, the pacer's tick and the partners' daily counters over keys on every master", async () => {
    const adv = await world.advertiser(1_000_000);
    const made = await Promise.all([0, 1, 2, 3].map(() => world.campaign(adv, { geo_include: ['ca'] })));
    const ids = made.map((m) => m.campaign.id);
    await Promise.all(ids.map(activeEverywhere));
    // Their keys live on more than one master: one pipeline for all of them is refused by the cluster.
    expect(
      new Set(await Promise.all(ids.map(async (id) => (await cluster.ownerOf(rotationCountsKey(id))).master))).size,
    ).toBeGreaterThan(1);
    const index = () => engines[0]?.engine.mirror.index;
    const rotation = new CreativeRotation({ redis: app.svc.redis, index });
    for (const m of made)
      rotation.observe({
        id: `e-${m.campaign.id}`,
        type: 'impression',
        ts: Date.now(),
        engine: 't',
        bid_id: 'b',
        campaign_id: m.campaign.id,
        creative_id: m.creativeId,
        advertiser_id: adv.id,
        charge_nano: 0,
      });
    await rotation.refresh();
    for (const m of made)
      expect(await app.svc.redis.hgetall(rotationCountsKey(m.campaign.id))).toEqual({ [`i:${m.creativeId}`]: '1' });
    const day = new Date().toISOString().slice(0, 10);
    for (const [i, id] of ids.entries())
      await app.svc.redis.hset(campaignPoolKey(id, day), 'spent', String(1_000 * (i + 1)));
    await expect(new Pacer(app.svc.redis, index).tick()).resolves.toBeUndefined();
    for (const id of [1, 2, 3, 4]) await app.svc.redis.hset(demandDayKey(id, day), 'requests', String(10 * id));
    const counted = await readDailyCounters(
      app.svc.redis,
      [1, 2, 3, 4],
      statsQuerySchema.parse({ from: day, to: day }),
    );
    expect([1, 2, 3, 4].map((id) => counted.get(day)?.get(id)?.bid_requests)).toEqual([10, 20, 30, 40]);
  }, 60_000);

  it('keeps working through master failovers during traffic: config, spend and events stay exact', async () => {
    const adv = await world.advertiser(1_000_000);
    const { campaign } = await world.campaign(adv, { geo_include: ['nz'], daily_budget_usd: 1, bid_usd: 6 });
    await activeEverywhere(campaign.id);
    // Fail over the shards that hold the event stream and this campaign's budget pool while bids and wins flow.
    const shards = [
      await cluster.ownerOf(EVENT_STREAM),
      await cluster.ownerOf(campaignPoolKey(campaign.id, new Date().toISOString().slice(0, 10))),
    ];
    const traffic = drainBudget(engines, 'NZL');
    await new Promise((r) => setTimeout(r, 300));
    for (const shard of new Map(shards.map((s) => [s.master, s])).values()) await cluster.failover(shard.replica);
    const { wins } = await traffic;
    expect(wins).toBeGreaterThanOrEqual(200 - (2 * SLICE_CENTS) / 0.5);
    expect(wins).toBeLessThanOrEqual(200);
    expect(await spentNano(campaign.id)).toBe(wins * 5_000_000);
    expect(await eventsInClickHouse(campaign.id)).toEqual({ bid: wins, win: wins });

    // And the shard holding the config: a change made after its failover still reaches both engines.
    const cfg = await cluster.ownerOf(CFG_LOG);
    await cluster.failover(cfg.replica);
    const later = await world.campaign(adv, { geo_include: ['ie'] });
    await activeEverywhere(later.campaign.id);
  }, 120_000);
});
