import { beforeAll, describe, expect, it } from 'vitest';
import { account, call, useTestApp } from '@adnet/test-support/admin';
import type { Account } from '@adnet/test-support/admin';

const fx = useTestApp();
let adv: Account;
let admin: Account;

beforeAll(async () => {
  [adv, admin] = await Promise.all([account(fx.app, 'advertiser'), account(fx.app, 'admin')]);
});

interface Balance {
  balance_cents: number;
  ledger: { kind: string; amount_cents: number; balance_after_cents: number; reason: string }[];
}

describe('balance and ledger', () => {
  it('admin credits add up exactly, each one a ledger entry', async () => {
    const a = await account(fx.app, 'advertiser');
    const amounts = [1, 999, 10_000, 250];
    await Promise.all(
      amounts.map((amount_cents) =>
        call(fx.app, 'POST', `/api/admin/advertisers/${a.id}/credit`, { token: admin.token, json: { amount_cents } }),
      ),
    );
    const r = await call<Balance>(fx.app, 'GET', '/api/adv/balance', { token: a.token });
    expect(r.body.balance_cents).toBe(11_250);
    expect(r.body.ledger).toHaveLength(4);
    expect(r.body.ledger.map((e) => e.amount_cents).sort((x, y) => x - y)).toEqual([1, 250, 999, 10_000]);
    expect(r.body.ledger[0]?.balance_after_cents).toBe(11_250);
    expect(r.body.ledger.every((e) => e.kind === 'credit')).toBe(true);
  });

  it('validates credits and who may give them', async () => {
    const bad = await call(fx.app, 'POST', `/api/admin/advertisers/${adv.id}/credit`, {
      token: admin.token,
      json: { amount_cents: 10.5 },
    });
    expect(bad.body).toEqual({ errors: { amount_cents: 'must be an integer number of cents' } });
    expect(
      (
        await call(fx.app, 'POST', `/api/admin/advertisers/${adv.id}/credit`, {
          token: admin.token,
          json: { amount_cents: -5 },
        })
      ).status,
    ).toBe(400);
    expect(
      (
        await call(fx.app, 'POST', `/api/admin/advertisers/${adv.id}/credit`, {
          token: admin.token,
          json: { amount_cents: '100' },
        })
      ).status,
    ).toBe(400);
    expect(
      (
        await call(fx.app, 'POST', `/api/admin/advertisers/${admin.id}/credit`, {
          token: admin.token,
          json: { amount_cents: 100 },
        })
      ).status,
    ).toBe(404);
    expect(
      (
        await call(fx.app, 'POST', '/api/admin/advertisers/999999/credit', {
          token: admin.token,
          json: { amount_cents: 100 },
        })
      ).status,
    ).toBe(404);
    expect(
      (
        await call(fx.app, 'POST', `/api/admin/advertisers/${adv.id}/credit`, {
          token: adv.token,
          json: { amount_cents: 100 },
        })
      ).status,
    ).toBe(403);
  });

  it('debits never take the balance below zero when funds are required', async () => {
    const a = await account(fx.app, 'advertiser');
    await fx.app.svc.ledger.credit(a.id, 100, 'test');
    const results = await Promise.all(Array.from({ length: 10 }, () => fx.app.svc.ledger.debit(a.id, 30, 'ai', true)));
    expect(results.filter((r) => r.ok)).toHaveLength(3);
    expect(await fx.app.svc.ledger.balance(a.id)).toBe(10);
  });

  it('admins list advertisers with balances', async () => {
    const r = await call<{ advertisers: { id: number; balance_cents: number }[] }>(
      fx.app,
      'GET',
      '/api/admin/advertisers?limit=500',
      { token: admin.token },
    );
    expect(r.body.advertisers.some((x) => x.id === adv.id)).toBe(true);
    expect((await call(fx.app, 'GET', '/api/admin/advertisers?limit=0', { token: admin.token })).status).toBe(400);
  });
});

describe('profile', () => {
  it('has a postback secret that rotates', async () => {
    const p1 = await call(fx.app, 'GET', '/api/adv/profile', { token: adv.token });
    expect(p1.body).toMatchObject({ id: adv.id, email: adv.email, role: 'advertiser', postback_url: null });
    expect(p1.body.postback_secret).toMatch(/^[0-9a-f]{64}$/);
    const p2 = await call(fx.app, 'POST', '/api/adv/profile/postback-secret/rotate', { token: adv.token });
    expect(p2.body.postback_secret).toMatch(/^[0-9a-f]{64}$/);
    expect(p2.body.postback_secret).not.toBe(p1.body.postback_secret);
    expect((await call(fx.app, 'GET', '/api/adv/profile', { token: adv.token })).body.postback_secret).toBe(
      p2.body.postback_secret,
    );
  });

  it('accepts a postback URL with the spec macros and refuses others', async () => {
    const url =
      'https://tracker.example.com/pb?cid={click_id}&p={payout_cents}&s={status}&g={geo}&d={device}&o={os}&b={browser}&v={vertical}&c={campaign_id}';
    const ok = await call(fx.app, 'PATCH', '/api/adv/profile', { token: adv.token, json: { postback_url: url } });
    expect(ok.status).toBe(200);
    expect(ok.body.postback_url).toBe(url);
    const bad = await call(fx.app, 'PATCH', '/api/adv/profile', {
      token: adv.token,
      json: { postback_url: 'https://t.example.com/?x={subid}' },
    });
    expect(bad.status).toBe(400);
    expect((bad.body.errors as Record<string, string>).postback_url).toContain('{click_id}');
    expect(
      (
        await call(fx.app, 'PATCH', '/api/adv/profile', {
          token: adv.token,
          json: { postback_url: 'ftp://t.example.com/' },
        })
      ).status,
    ).toBe(400);
    const cleared = await call(fx.app, 'PATCH', '/api/adv/profile', { token: adv.token, json: { postback_url: null } });
    expect(cleared.body.postback_url).toBeNull();
  });

  it('is for advertisers only', async () => {
    const pub = await account(fx.app, 'publisher');
    expect((await call(fx.app, 'GET', '/api/adv/profile', { token: pub.token })).status).toBe(403);
    expect((await call(fx.app, 'GET', '/api/adv/balance', { token: pub.token })).status).toBe(403);
  });
});
