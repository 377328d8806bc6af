import type { ClickHouseClient } from '@clickhouse/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addDays, newestClosableDay } from '@adnet/admin/payout-days';
import { runPayoutClose } from '@adnet/admin/payout-close';
import { account, call, startApp } from '@adnet/test-support/admin';
import type { TestApp } from '@adnet/test-support/admin';
import { startRedisCluster } from '@adnet/test-support/redis-cluster';
import type { TestRedisCluster } from '@adnet/test-support/redis-cluster';

// Billing's scripts on a real three-master Redis Cluster: each touches the keys of one slot
// ({adv:<id>} for deposits, {pay} for publishers' money), so none is refused as cross-slot.
let cluster: TestRedisCluster;
let app: TestApp;

beforeAll(async () => {
  cluster = await startRedisCluster(3);
  app = await startApp(cluster.url, { PAYOUT_HOLD_DAYS: '2' }, { clickhouse: true });
}, 90_000);
afterAll(async () => {
  await app?.close();
  await cluster?.stop();
}, 60_000);

describe('billing on Redis Cluster', () => {
  it('credits deposits once, refunds them and numbers receipts, for advertisers spread over the slots', async () => {
    const admin = await account(app, 'admin');
    const advs = await Promise.all(Array.from({ length: 6 }, () => account(app, 'advertiser')));
    for (const a of advs) {
      const d = (
        await call<{ id: number; checkout_url: string }>(app, 'POST', '/api/adv/deposits', {
          token: a.token,
          json: { amount_usd: 20 },
        })
      ).body;
      const path = new URL(d.checkout_url).pathname;
      const answers = await Promise.all(
        Array.from({ length: 5 }, () => fetch(app.base + path, { method: 'POST' }).then((r) => r.status)),
      );
      expect(answers.sort()).toEqual([200, 409, 409, 409, 409]);
      const got = (await call<{ receipt_number: string }>(app, 'GET', `/api/adv/deposits/${d.id}`, { token: a.token }))
        .body;
      expect(got.receipt_number).toBe(`R${a.id}-000001`);
      expect(
        (await call(app, 'POST', `/api/admin/deposits/${d.id}/refund`, { token: admin.token, json: {} })).status,
      ).toBe(200);
      expect(
        (await call<{ balance_cents: number; ledger: unknown[] }>(app, 'GET', '/api/adv/balance', { token: a.token }))
          .body,
      ).toMatchObject({
        balance_cents: 0,
      });
    }
  });

  it("closes publishers' days once and makes payouts due", async () => {
    const pubs = await Promise.all(Array.from({ length: 3 }, () => account(app, 'publisher')));
    const day = addDays(newestClosableDay(Date.now(), 2), -1);
    await (app.svc.clickhouse as ClickHouseClient).insert({
      table: 'adnet.stats_hourly',
      format: 'JSONEachRow',
      values: pubs.map((p) => ({
        hour: `${day} 08:00:00`,
        advertiser_id: 1,
        campaign_id: 1,
        publisher_id: p.id,
        spent_nano: 50 * 1_000_000_000,
      })),
    });
    for (const p of pubs)
      expect(
        (
          await call(app, 'PUT', '/api/pub/payout-settings', {
            token: p.token,
            json: { method: 'paypal', details: { email: 'p@example.com' }, threshold_usd: 10 },
          })
        ).status,
      ).toBe(200);
    await Promise.all([runPayoutClose(app.svc), runPayoutClose(app.svc), runPayoutClose(app.svc)]);
    for (const p of pubs) {
      const payouts = (
        await call<{ payouts: { amount_cents: number; status: string }[] }>(app, 'GET', '/api/pub/payouts', {
          token: p.token,
        })
      ).body.payouts;
      expect(payouts).toEqual([expect.objectContaining({ amount_cents: 3500, status: 'due' })]);
    }
  });
});
