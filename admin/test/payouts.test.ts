import type { ClickHouseClient } from '@clickhouse/client';
import type { Payout } from '@adnet/schemas/billing';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { newestClosableDay, addDays } from '../src/domain/payout-days.ts';
import { runPayoutClose } from '../src/payments/payout-close.ts';
import { createServices } from '../src/services.ts';
import { connectRedis } from '../src/storage/redis.ts';
import { account, call, useTestApp, validCampaign } from '@adnet/test-support/admin';
import type { Account } from '@adnet/test-support/admin';

// Publisher share 70% (the default): 1 USD of spend = 1e9 nano, earns 70 cents.
const fx = useTestApp({ PAYOUT_HOLD_DAYS: '3', PAYOUT_ADJUST_DAYS: '10' }, { clickhouse: true });
const NANO_PER_USD = 1_000_000_000;
let admin: Account;

beforeAll(async () => {
  admin = await account(fx.app, 'admin');
});

const ch = () => fx.app.svc.clickhouse as ClickHouseClient;

/** Rows of the hourly statistics as the ingester's view writes them (the table sums them). */
async function spend(
  rows: {
    day: string;
    publisher?: number;
    advertiser?: number;
    campaign?: number;
    usd: number;
    impressions?: number;
    clicks?: number;
  }[],
) {
  await ch().insert({
    table: 'adnet.stats_hourly',
    format: 'JSONEachRow',
    values: rows.map((r) => ({
      hour: `${r.day} 12:00:00`,
      advertiser_id: r.advertiser ?? 9999,
      campaign_id: r.campaign ?? 1,
      creative_id: 1,
      publisher_id: r.publisher ?? 0,
      site_id: 1,
      zone_id: 1,
      country: 'us',
      device: 'desktop',
      impressions: r.impressions ?? 0,
      clicks: r.clicks ?? 0,
      spent_nano: Math.round(r.usd * NANO_PER_USD),
    })),
  });
}

interface PubBalance {
  balance_cents: number;
  in_payouts_cents: number;
  closed_through: string | null;
  ledger: { kind: string; amount_cents: number; ref: string }[];
}
const pubBalance = async (p: Account) =>
  (await call<PubBalance>(fx.app, 'GET', '/api/pub/balance', { token: p.token })).body;
const settings = (p: Account, json: unknown) =>
  call(fx.app, 'PUT', '/api/pub/payout-settings', { token: p.token, json });

describe('publisher payouts', () => {
  const now = Date.now();
  const closable = newestClosableDay(now, 3);
  const held = addDays(closable, 1);

  it('moves each closed day into the balance exactly once, even with two admin processes closing at once', async () => {
    const p = await account(fx.app, 'publisher');
    await spend([
      { day: addDays(closable, -1), publisher: p.id, usd: 10 },
      { day: closable, publisher: p.id, usd: 20 },
      { day: closable, publisher: p.id, usd: 0.5 },
      // Still in its hold period: not moved.
      { day: held, publisher: p.id, usd: 1000 },
    ]);
    // A second admin process: its own services and Redis connection, the same stores.
    const redis2 = connectRedis(fx.redis.url, 'second');
    const svc2 = createServices(fx.app.svc.config, redis2, fx.app.svc.log, fx.app.svc.clickhouse);
    try {
      await Promise.all([
        runPayoutClose(fx.app.svc, now),
        runPayoutClose(svc2, now),
        runPayoutClose(fx.app.svc, now),
        runPayoutClose(svc2, now),
      ]);
      await runPayoutClose(fx.app.svc, now);
    } finally {
      await redis2.quit();
    }
    const b = await pubBalance(p);
    expect(b.balance_cents).toBe(700 + 1435);
    expect(b.closed_through).toBe(closable);
    const earnings = b.ledger.filter((e) => e.kind === 'earnings');
    expect(earnings.map((e) => [e.ref, e.amount_cents]).sort()).toEqual([
      [addDays(closable, -1), 700],
      [closable, 1435],
    ]);
  });

  it('posts a later change to a closed day as an adjustment entry, once', async () => {
    const p = await account(fx.app, 'publisher');
    await spend([{ day: closable, publisher: p.id, usd: 10 }]);
    await runPayoutClose(fx.app.svc, now);
    // Invalid traffic found after the close: part of the day's spend is taken back.
    await spend([{ day: closable, publisher: p.id, usd: -4 }]);
    await Promise.all([runPayoutClose(fx.app.svc, now), runPayoutClose(fx.app.svc, now)]);
    await runPayoutClose(fx.app.svc, now);
    const b = await pubBalance(p);
    expect(b.balance_cents).toBe(420);
    expect(b.ledger.filter((e) => e.kind === 'adjustment')).toEqual([
      expect.objectContaining({ amount_cents: -280, ref: closable }),
    ]);
    // All of it taken back: the day is worth nothing now.
    await spend([{ day: closable, publisher: p.id, usd: -6 }]);
    await runPayoutClose(fx.app.svc, now);
    expect((await pubBalance(p)).balance_cents).toBe(0);
  });

  it('validates payout settings per method, naming the field', async () => {
    const p = await account(fx.app, 'publisher');
    const cases: [unknown, Record<string, string>][] = [
      [{ method: 'cash', details: {}, threshold_usd: 50 }, { method: 'must be one of paypal, wire, crypto' }],
      [
        { method: 'paypal', details: { email: 'nope' }, threshold_usd: 50 },
        { 'details.email': 'must be an email address' },
      ],
      [
        { method: 'paypal', details: { email: 'p@example.com' }, threshold_usd: 5 },
        { threshold_usd: 'must be at least 10' },
      ],
      [
        {
          method: 'wire',
          details: { account_holder: 'A', iban: 'DE89370400440532013001', swift: 'COBADEFFXXX' },
          threshold_usd: 50,
        },
        { 'details.iban': 'must be a valid IBAN' },
      ],
      [
        {
          method: 'wire',
          details: { account_holder: 'A', iban: 'DE89370400440532013000', swift: 'x' },
          threshold_usd: 50,
        },
        { 'details.swift': 'must be a BIC/SWIFT code of 8 or 11 characters' },
      ],
      [
        {
          method: 'crypto',
          details: { currency: 'DOGE', network: 'tron', address: 'T'.repeat(34) },
          threshold_usd: 50,
        },
        { 'details.currency': 'must be one of USDT, USDC, BTC, ETH' },
      ],
      [
        { method: 'paypal', details: { email: 'p@example.com', iban: 'x' }, threshold_usd: 50 },
        { details: expect.any(String) as string },
      ],
    ];
    for (const [json, errors] of cases) {
      const r = await settings(p, json);
      expect(r.status, JSON.stringify(json)).toBe(400);
      expect(r.body).toEqual({ errors });
    }
    const ok = await settings(p, {
      method: 'wire',
      details: { account_holder: 'Ann Example', iban: 'de89 3704 0044 0532 0130 00', swift: 'cobadeff' },
      threshold_usd: 50,
    });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({
      method: 'wire',
      details: { iban: 'DE89370400440532013000', swift: 'COBADEFF' },
      threshold_cents: 5000,
    });
    const adv = await account(fx.app, 'advertiser');
    expect((await call(fx.app, 'PUT', '/api/pub/payout-settings', { token: adv.token, json: ok.body })).status).toBe(
      403,
    );
  });

  it('makes a payout due at the close once the balance reaches the threshold; admins hold and pay it', async () => {
    const p = await account(fx.app, 'publisher');
    await settings(p, { method: 'paypal', details: { email: 'payee@example.com' }, threshold_usd: 20 });
    await spend([{ day: addDays(closable, -2), publisher: p.id, usd: 20 }]);
    await runPayoutClose(fx.app.svc, now);
    // 14.00 earned: under the threshold, no payout yet.
    expect(
      (await call<{ payouts: Payout[] }>(fx.app, 'GET', '/api/pub/payouts', { token: p.token })).body.payouts,
    ).toEqual([]);
    await spend([{ day: addDays(closable, -3), publisher: p.id, usd: 10 }]);
    await Promise.all([runPayoutClose(fx.app.svc, now), runPayoutClose(fx.app.svc, now)]);
    const mine = (await call<{ payouts: Payout[] }>(fx.app, 'GET', '/api/pub/payouts', { token: p.token })).body
      .payouts;
    expect(mine).toEqual([
      expect.objectContaining({
        status: 'due',
        amount_cents: 2100,
        method: 'paypal',
        details: { email: 'payee@example.com' },
      }),
    ]);
    const payout = mine[0] as Payout;
    expect(await pubBalance(p)).toMatchObject({ balance_cents: 0, in_payouts_cents: 2100 });

    const due = await call<{ payouts: Payout[] }>(fx.app, 'GET', '/api/admin/payouts?status=due', {
      token: admin.token,
    });
    expect(due.body.payouts.map((x) => x.id)).toContain(payout.id);
    // The admin's queue names the publisher by email; the publisher's own list does not repeat it.
    expect(due.body.payouts.find((x) => x.id === payout.id)).toMatchObject({
      publisher_id: p.id,
      publisher_email: p.email,
    });
    expect(mine[0]).not.toHaveProperty('publisher_email');
    expect((await call(fx.app, 'GET', '/api/admin/payouts?status=lost', { token: admin.token })).body).toEqual({
      errors: { status: 'must be one of due, held, paid' },
    });
    expect((await call(fx.app, 'GET', '/api/admin/payouts', { token: p.token })).status).toBe(403);

    const held = await call<Payout>(fx.app, 'POST', `/api/admin/payouts/${payout.id}/hold`, {
      token: admin.token,
      json: { reason: 'traffic review' },
    });
    expect(held.body).toMatchObject({ status: 'held', hold_reason: 'traffic review' });
    expect(
      (
        await call(fx.app, 'POST', `/api/admin/payouts/${payout.id}/hold`, {
          token: admin.token,
          json: { reason: 'again' },
        })
      ).status,
    ).toBe(409);
    expect(
      (await call(fx.app, 'POST', `/api/admin/payouts/${payout.id}/paid`, { token: admin.token, json: {} })).body,
    ).toEqual({
      errors: { reference: 'is required' },
    });

    // The publisher is told once, through the real mail queue, however many admins press Paid at once.
    const notify = vi.spyOn(fx.app.svc.notifier, 'notify');
    try {
      const answers = await Promise.all(
        Array.from({ length: 5 }, () =>
          call<Payout>(fx.app, 'POST', `/api/admin/payouts/${payout.id}/paid`, {
            token: admin.token,
            json: { reference: 'PP-123' },
          }),
        ),
      );
      expect(answers.filter((r) => r.status === 200)).toHaveLength(1);
      expect(answers.filter((r) => r.status === 409)).toHaveLength(4);
      const told = notify.mock.calls.map(([n]) => n).filter((n) => n.kind === 'payout_paid');
      expect(told).toEqual([
        { kind: 'payout_paid', user_id: p.id, payout_id: payout.id, amount_cents: 2100, reference: 'PP-123' },
      ]);
      expect(await notify.mock.results.at(-1)?.value).toBe(true);
    } finally {
      notify.mockRestore();
    }
    expect(
      (
        await call<{ payouts: Payout[] }>(fx.app, 'GET', '/api/admin/payouts?status=due', { token: admin.token })
      ).body.payouts.map((x) => x.id),
    ).not.toContain(payout.id);
    expect(
      (await call(fx.app, 'POST', '/api/admin/payouts/999999/paid', { token: admin.token, json: { reference: 'x' } }))
        .status,
    ).toBe(404);
    expect(await pubBalance(p)).toMatchObject({ balance_cents: 0, in_payouts_cents: 0 });
  });

  it('gives publishers a monthly statement of their ledger, as JSON and formula-safe CSV', async () => {
    const p = await account(fx.app, 'publisher');
    await spend([{ day: closable, publisher: p.id, usd: 1 }]);
    await runPayoutClose(fx.app.svc, now);
    const month = new Date().toISOString().slice(0, 7);
    const s = await call<{ opening_balance_cents: number; closing_balance_cents: number; earnings_cents: number }>(
      fx.app,
      'GET',
      `/api/pub/statements/${month}`,
      { token: p.token },
    );
    expect(s.body).toMatchObject({ opening_balance_cents: 0, closing_balance_cents: 70, earnings_cents: 70 });
    const csv = await fetch(`${fx.app.base}/api/pub/statements/${month}`, {
      headers: { authorization: `Bearer ${p.token}`, accept: 'text/csv' },
    });
    expect(csv.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    const lines = (await csv.text()).trim().split('\n');
    expect(lines[0]).toBe('created_at,kind,ref,amount_usd,balance_after_usd');
    expect(lines[1]).toMatch(new RegExp(`,earnings,${closable},0\\.70,0\\.70$`));
    expect((await call(fx.app, 'GET', '/api/pub/statements/2026-13', { token: p.token })).body).toEqual({
      errors: { month: 'must be a month as YYYY-MM' },
    });
    expect((await call(fx.app, 'GET', '/api/pub/statements/0001-01', { token: p.token })).body).toEqual({
      errors: { month: 'must be 1970-01 or later' },
    });
    // The first month of the epoch has nothing before it (found by the hostile-input suite).
    expect((await call(fx.app, 'GET', '/api/pub/statements/1970-01', { token: p.token })).body).toMatchObject({
      opening_balance_cents: 0,
      entries: [],
    });
    expect(
      (await call(fx.app, 'GET', '/api/adv/statements/1970-01', { token: (await account(fx.app, 'advertiser')).token }))
        .status,
    ).toBe(200);
  });
});

describe('advertiser statements', () => {
  it('lists spend per campaign for the month from the statistics, as JSON and CSV, with deposits', async () => {
    const a = await account(fx.app, 'advertiser');
    const c1 = await call<{ id: number }>(fx.app, 'POST', '/api/adv/campaigns', {
      token: a.token,
      json: { ...validCampaign, name: '=HYPERLINK("http://evil.example","x")' },
    });
    const c2 = await call<{ id: number }>(fx.app, 'POST', '/api/adv/campaigns', {
      token: a.token,
      json: { ...validCampaign, name: 'Plain, with comma' },
    });
    await spend([
      { day: '2026-10-31', advertiser: a.id, campaign: c1.body.id, usd: 99, impressions: 5 },
      { day: '2026-11-01', advertiser: a.id, campaign: c1.body.id, usd: 1.234, impressions: 10, clicks: 2 },
      { day: '2026-11-30', advertiser: a.id, campaign: c1.body.id, usd: 2, impressions: 20 },
      { day: '2026-11-15', advertiser: a.id, campaign: c2.body.id, usd: 0.5, impressions: 7 },
      { day: '2026-12-01', advertiser: a.id, campaign: c2.body.id, usd: 77 },
    ]);
    const r = await call<{ campaigns: unknown[]; total_spent_cents: number }>(
      fx.app,
      'GET',
      '/api/adv/statements/2026-11',
      { token: a.token },
    );
    expect(r.status).toBe(200);
    expect(r.body.campaigns).toEqual([
      {
        campaign_id: c1.body.id,
        name: '=HYPERLINK("http://evil.example","x")',
        impressions: 30,
        clicks: 2,
        conversions: 0,
        spent_cents: 323,
      },
      {
        campaign_id: c2.body.id,
        name: 'Plain, with comma',
        impressions: 7,
        clicks: 0,
        conversions: 0,
        spent_cents: 50,
      },
    ]);
    expect(r.body.total_spent_cents).toBe(373);
    // The same figure the statistics give for the month in UTC.
    const stats = await call<{ rows: { spent_cents: number }[] }>(
      fx.app,
      'GET',
      `/api/adv/stats?from=2026-11-01&to=2026-11-30&group_by=campaign&tz=UTC`,
      {
        token: a.token,
      },
    );
    expect(stats.body.rows.map((x) => x.spent_cents)).toEqual([323, 50]);

    const csv = await call<string>(fx.app, 'GET', '/api/adv/statements/2026-11?format=csv', { token: a.token });
    expect(csv.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(csv.body.split('\n')).toEqual([
      'campaign_id,name,impressions,clicks,conversions,spent_usd',
      `${c1.body.id},"'=HYPERLINK(""http://evil.example"",""x"")",30,2,0,3.23`,
      `${c2.body.id},"Plain, with comma",7,0,0,0.50`,
      ',Total,,,,3.73',
      '',
    ]);
    const other = await account(fx.app, 'advertiser');
    expect(
      (await call<{ campaigns: unknown[] }>(fx.app, 'GET', '/api/adv/statements/2026-11', { token: other.token })).body
        .campaigns,
    ).toEqual([]);
    expect((await call(fx.app, 'GET', '/api/adv/statements/2026-1', { token: a.token })).status).toBe(400);
  });
});
