import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { account, call, useTestApp } from '@adnet/test-support/admin';
import type { Account } from '@adnet/test-support/admin';
import { drainBudget } from '@adnet/test-support/budget-drain';
import { eventually, startEngine } from '@adnet/test-support/engine';
import type { TestEngine } from '@adnet/test-support/engine';
import { World } from '@adnet/test-support/world';

// docs/billing.md: a refund of money already spent takes the balance below zero, and then no engine
// serves the advertiser's campaigns until a deposit covers the debt.

const fx = useTestApp({ DEPOSIT_MIN_USD: '0.5' });
let world: World;
let engine: TestEngine;
let admin: Account;

beforeAll(async () => {
  world = await World.create(fx.app);
  await world.partner();
  admin = await account(fx.app, 'admin');
  engine = await startEngine(fx.redis.url, { BUDGET_SLICE_CENTS: '5' });
});
afterAll(async () => {
  await engine?.stop();
});

interface Deposit {
  id: number;
  checkout_url: string;
}

async function pay(adv: Account, usd: number): Promise<Deposit> {
  const d = (await call<Deposit>(fx.app, 'POST', '/api/adv/deposits', { token: adv.token, json: { amount_usd: usd } }))
    .body;
  expect((await fetch(fx.app.base + new URL(d.checkout_url).pathname, { method: 'POST' })).status).toBe(200);
  return d;
}
const balance = async (adv: Account) =>
  (await call<{ balance_cents: number }>(fx.app, 'GET', '/api/adv/balance', { token: adv.token })).body.balance_cents;

describe('a refund of spent money', () => {
  it('stops serving below zero; the next deposit pays the debt and serving resumes', async () => {
    const adv = await world.advertiser(0);
    const first = await pay(adv, 0.5);
    const { campaign } = await world.campaign(adv, { geo_include: ['br'], daily_budget_usd: 100, bid_usd: 6 });
    await eventually(() => engine.engine.mirror.index?.campaigns.get(campaign.id)?.status === 'active');
    const spent = await drainBudget([engine], 'BRA');
    expect(spent.wins).toBeGreaterThan(0);
    const afterSpend = await balance(adv);
    expect(afterSpend).toBe(50 - Math.floor(spent.wins * 0.5));

    expect(
      (await call(fx.app, 'POST', `/api/admin/deposits/${first.id}/refund`, { token: admin.token, json: {} })).status,
    ).toBe(200);
    expect(await balance(adv)).toBe(afterSpend - 50);
    expect(await balance(adv)).toBeLessThan(0);
    expect((await drainBudget([engine], 'BRA')).wins).toBe(0);

    // 1 USD: the debt first, the rest spendable.
    await pay(adv, 1);
    const topped = await balance(adv);
    expect(topped).toBe(afterSpend - 50 + 100);
    const again = await drainBudget([engine], 'BRA');
    expect(again.wins).toBeGreaterThan(0);
    expect(again.wins).toBeLessThanOrEqual(topped * 2);
  });
});
