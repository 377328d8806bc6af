import { campaignPoolKey, campaignTotalKey } from '@adnet/schemas/redis-keys';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, useTestApp } from './support/admin.ts';
import { defineBudgetScripts } from '../../engine/src/budget/budget-scripts.ts';
import { drainBudget } from './support/budget-drain.ts';
import { eventually, startEngine } from './support/engine.ts';
import type { TestEngine } from './support/engine.ts';
import { World } from './support/world.ts';

const fx = useTestApp();
let world: World;
let engines: TestEngine[];
const SLICE_CENTS = 10;

beforeAll(async () => {
  world = await World.create(fx.app);
  await world.partner();
  engines = await Promise.all([0, 1].map(() => startEngine(fx.redis.url, { BUDGET_SLICE_CENTS: String(SLICE_CENTS) })));
});
afterAll(async () => {
  await Promise.all(engines.map((e) => e.stop()));
});

describe('budgets across two engines', () => {
  it('a daily budget holds within the stated bound, spend counted exactly once', async () => {
    const adv = await world.advertiser(1_000_000);
    const { campaign } = await world.campaign(adv, { geo_include: ['au'], daily_budget_usd: 1, bid_usd: 6 });
    await Promise.all(engines.map((e) => eventually(() => e.engine.mirror.index?.campaigns.get(campaign.id)?.status === 'active')));
    const { wins, nobidsAfter } = await drainBudget(engines, 'AUS');
    expect(nobidsAfter).toBe(40);
    const day = new Date().toISOString().slice(0, 10);
    const spentNano = Number(await fx.app.svc.redis.hget(campaignPoolKey(campaign.id, day), 'spent'));
    // Exactly what the counted wins cost: 0.5 cents each.
    expect(spentNano).toBe(wins * 5_000_000);
    // Budget $1 = 200 impressions. With win notices arriving promptly there is no overspend at all
    // (spend + holds never pass the limit); at most the engines' unspent slices stay unused.
    expect(wins).toBeGreaterThanOrEqual(200 - (2 * SLICE_CENTS) / 0.5);
    expect(wins).toBeLessThanOrEqual(200);
    const api = await call<{ daily_spent_cents: number; delivery: unknown }>(fx.app, 'GET', `/api/adv/campaigns/${campaign.id}`, { token: adv.token });
    expect(api.body.daily_spent_cents).toBe(Math.floor(wins * 0.5));
    // As the engines have it: no more bids, so the day's budget is spent.
    expect(api.body.delivery).toEqual({ serving: false, reasons: ['daily_budget_spent'] });
    const bal = await call<{ balance_cents: number }>(fx.app, 'GET', '/api/adv/balance', { token: adv.token });
    expect(bal.body.balance_cents).toBe(1_000_000 - Math.floor(wins * 0.5));
  });

  it('an advertiser out of balance stops bidding on every engine', async () => {
    const adv = await world.advertiser(30);
    const { campaign } = await world.campaign(adv, { geo_include: ['nz'], daily_budget_usd: 100, bid_usd: 6 });
    await Promise.all(engines.map((e) => eventually(() => e.engine.mirror.index?.campaigns.get(campaign.id)?.status === 'active')));
    const { wins } = await drainBudget(engines, 'NZL');
    // 30 cents of balance = 60 impressions at 0.5 cents.
    expect(wins).toBeGreaterThanOrEqual(60 - (2 * SLICE_CENTS) / 0.5);
    expect(wins).toBeLessThanOrEqual(60);
    const bal = await call<{ balance_cents: number; ledger: { amount_cents: number }[] }>(fx.app, 'GET', '/api/adv/balance', { token: adv.token });
    expect(bal.body.balance_cents).toBe(30 - Math.floor(wins * 0.5));
    expect(bal.body.ledger.reduce((s, e) => s + e.amount_cents, 0)).toBe(bal.body.balance_cents);
  });
});

describe('a lifetime budget', () => {
  it('caps spend over all days on top of the daily budget, on every engine, and the campaign says so', async () => {
    const adv = await world.advertiser(1_000_000);
    const { campaign } = await world.campaign(adv, { geo_include: ['jp'], daily_budget_usd: 100, total_budget_usd: 1.5, bid_usd: 6 });
    // 70 cents spent on earlier days: 80 cents are left of the $1.50.
    await fx.app.svc.redis.hset(campaignTotalKey(campaign.id), 'spent', 700_000_000);
    await Promise.all(engines.map((e) => eventually(() => e.engine.mirror.index?.campaigns.get(campaign.id)?.status === 'active')));
    const { wins } = await drainBudget(engines, 'JPN');
    // 80 cents = 160 impressions at 0.5 cents, less what the engines' unspent slices keep unused.
    expect(wins).toBeGreaterThanOrEqual(160 - (2 * SLICE_CENTS) / 0.5);
    expect(wins).toBeLessThanOrEqual(160);
    const lifetime = Number(await fx.app.svc.redis.hget(campaignTotalKey(campaign.id), 'spent'));
    expect(lifetime).toBe(700_000_000 + wins * 5_000_000);
    const api = await call<{ total_budget_cents: number; total_spent_cents: number; delivery: { reasons: string[] } }>(
      fx.app,
      'GET',
      `/api/adv/campaigns/${campaign.id}`,
      { token: adv.token },
    );
    expect(api.body).toMatchObject({ total_budget_cents: 150, total_spent_cents: Math.floor(lifetime / 10_000_000) });
    // The engines stopped with less than one impression held by each: the campaign says it is spent
    // whatever fraction of a cent is left (schemas/src/delivery.ts, budgetLeft).
    expect(api.body.delivery.reasons).toContain('total_budget_spent');
  });
});

describe('spend written exactly once', () => {
  const day = () => new Date().toISOString().slice(0, 10);

  it('spend whose write failed is sent again until Redis takes it, and counted once', async () => {
    const adv = await world.advertiser(1_000_000);
    const { campaign } = await world.campaign(adv, { geo_include: ['jp'], daily_budget_usd: 100 });
    const budget = engines[0]?.engine.budget as NonNullable<(typeof engines)[0]>['engine']['budget'];
    const engineId = engines[0]?.engine.id as string;
    const before = Number((await fx.app.svc.redis.hget(campaignPoolKey(campaign.id, day()), 'spent')) ?? 0);
    // Scripts refused (as a node in failover would), so the batch fails and is kept.
    await fx.app.svc.redis.call('ACL', 'SETUSER', 'default', '-evalsha', '-eval');
    try {
      budget.recordSpend(campaign.id, adv.id, day(), 7_000_000, engineId);
      await expect(budget.flush()).rejects.toThrow(/NOPERM|permission/i);
      expect(budget.unsentSpend).toBeGreaterThan(0);
      budget.recordSpend(campaign.id, adv.id, day(), 3_000_000, engineId);
    } finally {
      await fx.app.svc.redis.call('ACL', 'SETUSER', 'default', '+@all');
    }
    await eventually(async () => {
      await budget.flush().catch(() => undefined);
      return budget.unsentSpend === 0;
    });
    expect(Number(await fx.app.svc.redis.hget(campaignPoolKey(campaign.id, day()), 'spent')) - before).toBe(10_000_000);
    // 1 cent moved from the pending counter to the ledger.
    const bal = await call<{ balance_cents: number }>(fx.app, 'GET', '/api/adv/balance', { token: adv.token });
    expect(bal.body.balance_cents).toBe(1_000_000 - 1);
  });

  it('a batch delivered twice (its answer lost) is applied once', async () => {
    const redis = new Redis(fx.redis.url);
    defineBudgetScripts(redis);
    const key = campaignPoolKey(999_999, day());
    for (let i = 0; i < 2; i++)
      await redis.budSpendCampaign(2, key, `${key.slice(0, key.lastIndexOf(':'))}:total`, 5_000_000, 60_000, 'engine-x', 41, 'engine-x', 5_000_000);
    await redis.budSpendCampaign(2, key, `${key.slice(0, key.lastIndexOf(':'))}:total`, 2_000_000, 60_000, 'engine-x', 42, 'engine-x', 2_000_000);
    // An older number arriving late is a repeat too.
    await redis.budSpendCampaign(2, key, `${key.slice(0, key.lastIndexOf(':'))}:total`, 5_000_000, 60_000, 'engine-x', 41, 'engine-x', 5_000_000);
    expect(Number(await redis.hget(key, 'spent'))).toBe(7_000_000);
    await redis.quit();
  });
});
