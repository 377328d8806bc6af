import { advertiserHoldKey, advertiserPendingKey, balanceKey, campaignPoolKey, ledgerKey, totalKeyOfPool } from '@adnet/schemas/redis-keys';
import { beforeEach, describe, expect, it } from 'vitest';
import { RedisDirectCharger } from '../src/budget/direct-charges.ts';
import type { DirectCharge } from '../src/auction/ports.ts';
import { useTestRedis } from './support/test-redis.ts';

// CPC charges on one Redis server (one script for the campaign's pool and the advertiser's balance), real Redis.
const redis = useTestRedis();
const DAY = '2026-11-24';
const pool = campaignPoolKey(7, DAY);
const charge = (nano: number, extra: Partial<DirectCharge> = {}): DirectCharge => ({
  campaignId: 7,
  advertiserId: 3,
  dailyBudgetCents: 100,
  totalBudgetCents: -1,
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
    expect(await state()).toEqual({ spent: 22_000_000, lifetime: 22_000_000, balanceCents: 48, pendingNano: 2_000_000, debits: [-1, -1] });
  });

  it("writes nothing when the campaign's budget or lifetime budget has no room, counting every engine's holds", async () => {
    const charger = new RedisDirectCharger(redis.client);
    await redis.client.hset(pool, 'held', String(995_000_000));
    expect(await charger.charge(charge(6_000_000))).toBe('budget_exhausted');
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
    const results = await Promise.all(Array.from({ length: 40 }, (_, i) => (chargers[i % 2] as RedisDirectCharger).charge(charge(30_000_000))));
    expect(results.filter((r) => r === 'charged')).toHaveLength(16);
    expect(results.filter((r) => r === 'balance_exhausted')).toHaveLength(24);
    expect(await state()).toMatchObject({ spent: 480_000_000, balanceCents: 2, pendingNano: 0 });
  });
});
