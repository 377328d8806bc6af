import {
  advertiserHoldKey,
  advertiserPendingKey,
  balanceKey,
  campaignPoolKey,
  ledgerKey,
  totalKeyOfPool,
} from '@adnet/schemas/redis-keys';
import { connectRedis } from '@adnet/runtime/redis-connect';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { RedisDirectCharger } from '../src/budget/direct-charges.ts';
import type { DirectCharge } from '../src/auction/ports.ts';
import { useTestRedis } from './support/test-redis.ts';
import { startRedisCluster } from '@adnet/test-support/redis-cluster';
import type { TestRedisCluster } from '@adnet/test-support/redis-cluster';

// CPC charges on one Redis server (one script for the campaign's pool and the advertiser's balance), real Redis.
const redis = useTestRedis();
const DAY = '2026-11-24';
const pool = campaignPoolKey(7, DAY);
const charge = (nano: number, extra: Partial<DirectCharge> = {}): DirectCharge => ({
  campaignId: 7,
  advertiserId: 3,
  dailyBudgetCents: 100,
  totalBudgetCents: -1,
  bidType: 'cpc',
  day: DAY,
  nano,
  at: Date.parse('2026-11-24T10:00:00Z'),
  reason: 'click spend',
  ...extra,
});
/** What the two keys' owners hold: the campaign's spend (today, lifetime), the advertiser's balance, pending spend and debits. */
async function state() {
  const c = redis.client;
  return {
    spent: Number((await c.hget(pool, 'spent')) ?? 0),
    lifetime: Number((await c.hget(totalKeyOfPool(pool), 'spent')) ?? 0),
    balanceCents: Number(await c.get(balanceKey(3))),
    pendingNano: Number((await c.get(advertiserPendingKey(3))) ?? 0),
    debits: (await c.xrange(ledgerKey(3), '-', '+')).map(([, f]) => Number(f[f.indexOf('amt') + 1])),
  };
}

describe('direct charges on one server', () => {
  beforeEach(async () => {
    await redis.client.flushall();
    await redis.client.set(balanceKey(3), '50');
  });

  it('charges the pool and the balance together, whole cents into the ledger', async () => {
    const charger = new RedisDirectCharger(redis.client);
    expect(await charger.charge(charge(15_000_000))).toBe('charged');
    expect(await charger.charge(charge(7_000_000))).toBe('charged');
    expect(await state()).toEqual({
      spent: 22_000_000,
      lifetime: 22_000_000,
      balanceCents: 48,
      pendingNano: 2_000_000,
      debits: [-1, -1],
    });
  });

  it("writes nothing when a CPM campaign's budget or lifetime budget has no room, counting every engine's holds", async () => {
    const charger = new RedisDirectCharger(redis.client);
    const late = { bidType: 'cpm', reason: 'ad spend' } as const;
    await redis.client.hset(pool, 'held', String(995_000_000));
    expect(await charger.charge(charge(6_000_000, late))).toBe('budget_exhausted');
    await redis.client.hset(pool, 'held', String(995_000_000));
    expect(await charger.charge(charge(6_000_000, { ...late, totalBudgetCents: 200 }))).toBe('budget_exhausted');
    await redis.client.hset(pool, 'held', '0');
    expect(await charger.charge(charge(6_000_000, { totalBudgetCents: 0 }))).toBe('budget_exhausted');
    expect(await state()).toEqual({ spent: 0, lifetime: 0, balanceCents: 50, pendingNano: 0, debits: [] });
  });

  it("writes nothing, the campaign's pool included, when the advertiser's balance beside its holds cannot pay", async () => {
    const charger = new RedisDirectCharger(redis.client);
    await redis.client.hset(advertiserHoldKey(3), 'held', String(495_000_000));
    expect(await charger.charge(charge(6_000_000))).toBe('balance_exhausted');
    expect(await state()).toEqual({ spent: 0, lifetime: 0, balanceCents: 50, pendingNano: 0, debits: [] });
  });

  it('never takes the balance below zero or the pool past its budget under concurrent charges', async () => {
    const chargers = [new RedisDirectCharger(redis.client), new RedisDirectCharger(redis.client)];
    // 40 charges of 3 cents against a 50-cent balance and a $1 budget: 16 fit.
    const results = await Promise.all(
      Array.from({ length: 40 }, (_, i) => (chargers[i % 2] as RedisDirectCharger).charge(charge(30_000_000))),
    );
    expect(results.filter((r) => r === 'charged')).toHaveLength(16);
    expect(results.filter((r) => r === 'balance_exhausted')).toHaveLength(24);
    expect(await state()).toMatchObject({ spent: 480_000_000, balanceCents: 2, pendingNano: 0 });
  });
});

// A CPC campaign's holds reserve nothing its clicks spend (its impressions are charged nothing): its clicks fit
// beside the spend alone, up to the daily and the lifetime budget and never past them; the advertiser's holds
// (other campaigns' impressions in flight) still count. On one server (one script) and on a Redis Cluster (two).
describe.each(['one server', 'a Redis Cluster'])(
  "a CPC campaign's clicks beside the engines' holds, on %s",
  (where) => {
    let cluster: TestRedisCluster | undefined;
    let client: Redis;
    let nextId = 100;
    beforeAll(async () => {
      if (where === 'one server') return void (client = redis.client);
      cluster = await startRedisCluster(3);
      client = connectRedis(cluster.url, {});
    }, 90_000);
    afterAll(async () => {
      if (!cluster) return;
      await client.quit();
      await cluster.stop();
    }, 60_000);

    /** A campaign and advertiser of their own (a cluster is not flushed between cases), with what the engines hold of their pools. */
    async function campaign(balanceCents: number, campaignHeld: number, advertiserHeld = 0) {
      const campaignId = ++nextId;
      const advertiserId = ++nextId;
      const key = campaignPoolKey(campaignId, DAY);
      await client.hset(key, 'held', campaignHeld, 'e:one', campaignHeld);
      await client.hset(advertiserHoldKey(advertiserId), 'held', advertiserHeld, 'e:one', advertiserHeld);
      await client.set(balanceKey(advertiserId), balanceCents);
      const spent = async () => [
        Number((await client.hget(key, 'spent')) ?? 0),
        Number((await client.hget(totalKeyOfPool(key), 'spent')) ?? 0),
      ];
      const balance = async () => Number(await client.get(balanceKey(advertiserId)));
      return {
        campaignId,
        advertiserId,
        spent,
        balance,
        click: (extra: Partial<DirectCharge> = {}) => charge(30_000_000, { campaignId, advertiserId, ...extra }),
      };
    }

    it('charges clicks up to the whole daily budget and the whole lifetime budget, however much the engines hold, and no further', async () => {
      const charger = new RedisDirectCharger(client);
      // $1 a day, 95 cents of it held by the engines: 33 clicks of 3 cents fit all the same.
      const daily = await campaign(10_000, 950_000_000);
      const results: string[] = [];
      for (let i = 0; i < 40; i++) results.push(await charger.charge(daily.click()));
      expect(results.filter((r) => r === 'charged')).toHaveLength(33);
      expect(results.slice(33).every((r) => r === 'budget_exhausted')).toBe(true);
      expect(await daily.spent()).toEqual([990_000_000, 990_000_000]);
      // A CPM campaign's late charge still fits only beside the holds.
      const cpm = await campaign(10_000, 980_000_000);
      expect(await charger.charge(cpm.click({ bidType: 'cpm', reason: 'ad spend' }))).toBe('budget_exhausted');
      // A lifetime budget of 50 cents with 10 spent before today, the engines holding 45: 13 clicks.
      const lifetime = await campaign(10_000, 450_000_000);
      await client.hset(totalKeyOfPool(campaignPoolKey(lifetime.campaignId, DAY)), 'spent', 100_000_000);
      let charged = 0;
      for (let i = 0; i < 20; i++)
        if ((await charger.charge(lifetime.click({ totalBudgetCents: 50 }))) === 'charged') charged++;
      expect(charged).toBe(13);
      expect(await lifetime.spent()).toEqual([390_000_000, 490_000_000]);
    });

    it('never charges past the budget or the balance under concurrent clicks from several engines while the engines hold slices', async () => {
      const chargers = [new RedisDirectCharger(client), new RedisDirectCharger(client), new RedisDirectCharger(client)];
      const all = (c: { click: () => DirectCharge }) =>
        Promise.all(Array.from({ length: 40 }, (_, i) => (chargers[i % 3] as RedisDirectCharger).charge(c.click())));
      // The budget binds: $1, 90 cents held; a $5 balance.
      const budget = await campaign(500, 900_000_000);
      const byBudget = await all(budget);
      expect(byBudget.filter((r) => r === 'charged')).toHaveLength(33);
      expect(byBudget.filter((r) => r === 'budget_exhausted')).toHaveLength(7);
      expect(await budget.spent()).toEqual([990_000_000, 990_000_000]);
      expect(await budget.balance()).toBe(500 - 99);
      // The balance binds: 50 cents, 20 of them held for the advertiser's impressions in flight.
      const balance = await campaign(50, 950_000_000, 200_000_000);
      const byBalance = await all(balance);
      expect(byBalance.filter((r) => r === 'charged')).toHaveLength(10);
      // On a cluster the campaign is charged first and given its charge back when the advertiser cannot pay, so a
      // click racing those may find the budget full for a moment.
      const refused = where === 'one server' ? ['balance_exhausted'] : ['balance_exhausted', 'budget_exhausted'];
      expect(byBalance.filter((r) => refused.includes(r))).toHaveLength(30);
      expect(await balance.spent()).toEqual([300_000_000, 300_000_000]);
      expect(await balance.balance()).toBe(20);
    });
  },
);
