import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { account, call, startApp } from '@adnet/test-support/admin';
import type { Account, TestApp } from '@adnet/test-support/admin';
import { startRedis } from '@adnet/test-support/redis';
import type { TestRedis } from '@adnet/test-support/redis';
import { TRPCClientError } from '@trpc/client';
import Stripe from 'stripe';
import { startEngine } from '@adnet/test-support/engine';
import { trpcClient } from './support/trpc-client.ts';
import { completedSession, fakeStripe, refundedCharge, signedEvent } from './support/fake-stripe.ts';
import type { FakeStripe, FakeStripeSession } from './support/fake-stripe.ts';

interface Deposit {
  id: number;
  status: string;
  amount_cents: number;
  refunded_cents: number;
  checkout_url: string | null;
  receipt_number: string | null;
}
interface Balance {
  balance_cents: number;
  ledger: { kind: string; amount_cents: number; reason: string }[];
}

const WEBHOOK_SECRET = 'whsec_test_secret';
let redis: TestRedis;
let local: TestApp;
let stripeApp: TestApp;
let stripe: FakeStripe;
let admin: Account;
let stripeAdmin: Account;

beforeAll(async () => {
  redis = await startRedis();
  stripe = await fakeStripe();
  local = await startApp(redis.url, { DEPOSIT_MIN_USD: '5', DEPOSIT_MAX_USD: '5000' });
  // A second admin process configured for Stripe, against the local Stripe-shaped server.
  stripeApp = await startApp(redis.url, {
    STRIPE_SECRET_KEY: 'sk_test_fake',
    STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET,
    STRIPE_API_BASE_URL: stripe.url,
  });
  [admin, stripeAdmin] = await Promise.all([account(local, 'admin'), account(stripeApp, 'admin')]);
});
afterAll(async () => {
  await local?.close();
  await stripeApp?.close();
  await stripe?.close();
  await redis?.stop();
});

const balance = async (app: TestApp, a: Account) =>
  (await call<Balance>(app, 'GET', '/api/adv/balance', { token: a.token })).body;
const deposit = (app: TestApp, a: Account, amount_usd: unknown) =>
  call<Deposit>(app, 'POST', '/api/adv/deposits', { token: a.token, json: { amount_usd } });
const depositEntries = (b: Balance) => b.ledger.filter((e) => e.reason.startsWith('deposit #'));

/** The local checkout page's path (same origin as the admin in tests). */
const payPath = (d: Deposit) => new URL(d.checkout_url ?? '').pathname;

describe('deposits through the local provider', () => {
  it('creates a pending deposit whose checkout page pays it once, with the ledger naming it', async () => {
    const a = await account(local, 'advertiser');
    const created = await deposit(local, a, 25.5);
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ status: 'pending', amount_cents: 2550, receipt_number: null });
    expect(created.body.checkout_url).toMatch(new RegExp(`^${local.base}/pay/local/[0-9a-f]{64}$`));

    const page = await fetch(local.base + payPath(created.body));
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('<form method="post">');
    expect(html).toContain('$25.50');
    // The page may post its form to itself, and nothing else.
    expect(page.headers.get('content-security-policy')).toContain("form-action 'self'");

    const paid = await fetch(local.base + payPath(created.body), { method: 'POST' });
    expect(paid.status).toBe(200);
    expect(await paid.text()).toContain('Payment complete');
    const again = await fetch(local.base + payPath(created.body), { method: 'POST' });
    expect(again.status).toBe(409);

    const b = await balance(local, a);
    expect(b.balance_cents).toBe(2550);
    expect(depositEntries(b)).toEqual([
      expect.objectContaining({ kind: 'credit', amount_cents: 2550, reason: `deposit #${created.body.id}` }),
    ]);
    const list = await call<{ deposits: Deposit[] }>(local, 'GET', '/api/adv/deposits', { token: a.token });
    expect(list.body.deposits).toEqual([
      expect.objectContaining({
        id: created.body.id,
        status: 'paid',
        checkout_url: null,
        receipt_number: `R${a.id}-000001`,
      }),
    ]);
  });

  it('credits once when the Pay button is pressed 25 times at once', async () => {
    const a = await account(local, 'advertiser');
    const d = (await deposit(local, a, 100)).body;
    const answers = await Promise.all(
      Array.from({ length: 25 }, () => fetch(local.base + payPath(d), { method: 'POST' }).then((r) => r.status)),
    );
    expect(answers.filter((s) => s === 200)).toHaveLength(1);
    expect(answers.filter((s) => s === 409)).toHaveLength(24);
    const b = await balance(local, a);
    expect(b.balance_cents).toBe(10_000);
    expect(depositEntries(b)).toHaveLength(1);
  });

  it('refuses amounts out of range, naming amount_usd', async () => {
    const a = await account(local, 'advertiser');
    for (const [amount, message] of [
      [4.99, 'must be at least 5.00'],
      [5000.01, 'must be at most 5000.00'],
      [10.001, 'must have at most 2 decimal places'],
      [-1, 'must be at least 0.01'],
      ['10', 'must be a number'],
      [undefined, 'is required'],
    ] as const) {
      const r = await deposit(local, a, amount);
      expect(r.status, String(amount)).toBe(400);
      expect(r.body).toEqual({ errors: { amount_usd: message } });
    }
    expect(
      (await call<{ deposits: Deposit[] }>(local, 'GET', '/api/adv/deposits', { token: a.token })).body.deposits,
    ).toEqual([]);
    expect((await deposit(local, a, 5)).status).toBe(201);
    expect((await deposit(local, a, 5000)).status).toBe(201);
  });

  it('keeps deposits to their advertiser and unknown checkout links out', async () => {
    const [a, b, pub] = await Promise.all([
      account(local, 'advertiser'),
      account(local, 'advertiser'),
      account(local, 'publisher'),
    ]);
    const d = (await deposit(local, a, 10)).body;
    expect((await call(local, 'GET', `/api/adv/deposits/${d.id}`, { token: b.token })).status).toBe(403);
    expect((await call(local, 'GET', `/api/adv/deposits/${d.id}/receipt`, { token: b.token })).status).toBe(403);
    expect((await call(local, 'GET', '/api/adv/deposits/999999', { token: a.token })).status).toBe(404);
    expect(
      (await call(local, 'POST', '/api/adv/deposits', { token: pub.token, json: { amount_usd: 10 } })).status,
    ).toBe(403);
    expect((await fetch(`${local.base}/pay/local/${'0'.repeat(64)}`, { method: 'POST' })).status).toBe(404);
    expect((await fetch(`${local.base}/pay/local/not-a-token`, { method: 'POST' })).status).toBe(404);
    expect((await balance(local, a)).balance_cents).toBe(0);
  });

  it('numbers receipts without gaps per advertiser, only for paid deposits, as escaped HTML', async () => {
    const a = await account(local, 'advertiser');
    const ds = [];
    for (const usd of [10, 20, 30, 40]) ds.push((await deposit(local, a, usd)).body);
    // Pay the 4th, 1st and 3rd; the 2nd stays pending and takes no number.
    for (const i of [3, 0, 2]) await fetch(local.base + payPath(ds[i] as Deposit), { method: 'POST' });
    const numbers = await Promise.all(
      ds.map((d) =>
        call<Deposit>(local, 'GET', `/api/adv/deposits/${d.id}`, { token: a.token }).then((r) => r.body.receipt_number),
      ),
    );
    expect(numbers).toEqual([`R${a.id}-000002`, null, `R${a.id}-000003`, `R${a.id}-000001`]);

    const pending = await call(local, 'GET', `/api/adv/deposits/${ds[1]?.id}/receipt`, { token: a.token });
    expect(pending.status).toBe(409);
    const r = await fetch(`${local.base}/api/adv/deposits/${ds[0]?.id}/receipt`, {
      headers: { authorization: `Bearer ${a.token}` },
    });
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe('text/html; charset=utf-8');
    // Opened as a document, a receipt runs nothing: the API's sandboxing policy stays on it.
    expect(r.headers.get('content-security-policy')).toContain('sandbox');
    const html = await r.text();
    expect(html).toContain(`Receipt R${a.id}-000002`);
    expect(html).toContain('$10.00');
    expect(html).toContain(a.email);
    expect(html).not.toMatch(/<script/i);
  });

  it('an admin refund reverses the credit, even when it was spent (the balance goes below zero)', async () => {
    const a = await account(local, 'advertiser');
    const d = (await deposit(local, a, 50)).body;
    await fetch(local.base + payPath(d), { method: 'POST' });
    await local.svc.ledger.debit(a.id, 3000, 'ad spend', false);
    const r = await call<Deposit>(local, 'POST', `/api/admin/deposits/${d.id}/refund`, {
      token: admin.token,
      json: { reason: 'chargeback risk' },
    });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ status: 'refunded', refunded_cents: 5000 });
    const b = await balance(local, a);
    expect(b.balance_cents).toBe(-3000);
    expect(b.ledger.filter((e) => e.reason === `refund of deposit #${d.id}`)).toEqual([
      expect.objectContaining({ kind: 'debit', amount_cents: -5000 }),
    ]);
    const listed = await call<{ advertiser_email: string; deposits: Deposit[] }>(
      local,
      'GET',
      `/api/admin/deposits?advertiser_id=${a.id}`,
      {
        token: admin.token,
      },
    );
    expect(listed.body.deposits).toEqual([expect.objectContaining({ id: d.id, status: 'refunded' })]);
    expect(listed.body.advertiser_email).toBe(a.email);
    // Not an advertiser (the admin's own id, an id nobody has): no such advertiser, not an empty list.
    expect(
      (await call(local, 'GET', `/api/admin/deposits?advertiser_id=${admin.id}`, { token: admin.token })).status,
    ).toBe(404);
    expect(
      (await call(local, 'GET', '/api/admin/deposits?advertiser_id=99999999', { token: admin.token })).status,
    ).toBe(404);
    expect((await call(local, 'GET', '/api/admin/deposits', { token: admin.token })).body).toEqual({
      errors: { advertiser_id: expect.any(String) as string },
    });
    expect((await call(local, 'GET', `/api/admin/deposits?advertiser_id=${a.id}`, { token: a.token })).status).toBe(
      403,
    );
    const twice = await call(local, 'POST', `/api/admin/deposits/${d.id}/refund`, { token: admin.token, json: {} });
    expect(twice.status).toBe(409);
    expect((await balance(local, a)).balance_cents).toBe(-3000);
    const pendingOne = (await deposit(local, a, 10)).body;
    expect(
      (await call(local, 'POST', `/api/admin/deposits/${pendingOne.id}/refund`, { token: admin.token, json: {} }))
        .status,
    ).toBe(409);
    expect((await call(local, 'POST', `/api/admin/deposits/${d.id}/refund`, { token: a.token, json: {} })).status).toBe(
      403,
    );
  });
});

describe('deposits through the typed client', () => {
  it('creates, lists and pays a deposit, with the same field errors as REST', async () => {
    const a = await account(local, 'advertiser');
    const api = trpcClient(local.base, a.token);
    const d = await api.adv.deposits.create.mutate({ amount_usd: 12.34 });
    expect(d).toMatchObject({ status: 'pending', amount_cents: 1234 });
    const err = await api.adv.deposits.create.mutate({ amount_usd: 1 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TRPCClientError);
    expect((err as TRPCClientError<never>).data).toMatchObject({
      httpStatus: 400,
      fields: { amount_usd: 'must be at least 5.00' },
    });
    // The configured bound is checked with the rest of the input, before anything else: REST says the same.
    const over = await call(local, 'POST', '/api/adv/deposits', { token: a.token, json: { amount_usd: 5000.01 } });
    expect([over.status, over.body]).toEqual([400, { errors: { amount_usd: 'must be at most 5000.00' } }]);
    await fetch(local.base + payPath(d), { method: 'POST' });
    expect((await api.adv.deposits.list.query()).deposits.map((x) => x.status)).toEqual(['paid']);
    expect((await api.adv.deposits.receipt.query({ id: d.id })).number).toBe(`R${a.id}-000001`);
  });
});

describe('deposits through Stripe', () => {
  const hook = (e: { body: string; signature: string }, signature = e.signature) =>
    fetch(`${stripeApp.base}/payments/stripe/webhook`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'stripe-signature': signature },
      body: e.body,
    });

  async function stripeDeposit(a: Account, usd: number): Promise<{ d: Deposit; s: FakeStripeSession }> {
    const r = await deposit(stripeApp, a, usd);
    expect(r.status).toBe(201);
    const s = stripe.sessions.find((x) => x.depositId === String(r.body.id));
    if (!s) throw new Error('no session at the fake Stripe');
    return { d: r.body, s };
  }

  it('opens a Checkout Session with the secret key and answers its URL', async () => {
    const a = await account(stripeApp, 'advertiser');
    const { d, s } = await stripeDeposit(a, 42);
    expect(d).toMatchObject({
      status: 'pending',
      amount_cents: 4200,
      checkout_url: `https://checkout.stripe.test/c/pay/${s.id}`,
    });
    expect(s.amount).toBe(4200);
    expect(stripe.auth.at(-1)).toBe('Bearer sk_test_fake');
    // The local provider's page does not exist when Stripe is the provider.
    expect((await fetch(`${stripeApp.base}/pay/local/${'a'.repeat(64)}`)).status).toBe(404);
  });

  it('refuses a webhook with a wrong or missing signature, crediting nothing', async () => {
    const a = await account(stripeApp, 'advertiser');
    const { s } = await stripeDeposit(a, 10);
    const forged = signedEvent('whsec_someone_else', 'checkout.session.completed', completedSession(s));
    expect((await hook(forged)).status).toBe(400);
    const good = signedEvent(WEBHOOK_SECRET, 'checkout.session.completed', completedSession(s));
    // The right signature over another body.
    const tampered = {
      body: good.body.replace('"amount_total":1000', '"amount_total":999999'),
      signature: good.signature,
    };
    expect((await hook(tampered)).status).toBe(400);
    const none = await fetch(`${stripeApp.base}/payments/stripe/webhook`, { method: 'POST', body: good.body });
    expect(none.status).toBe(400);
    expect((await balance(stripeApp, a)).balance_cents).toBe(0);
    expect((await hook(good)).status).toBe(200);
    expect((await balance(stripeApp, a)).balance_cents).toBe(1000);
  });

  it('credits once whatever the webhooks do: replayed, concurrent, out of order', async () => {
    const a = await account(stripeApp, 'advertiser');
    const { d, s } = await stripeDeposit(a, 80);
    const done = signedEvent(WEBHOOK_SECRET, 'checkout.session.completed', completedSession(s));
    const async = signedEvent(WEBHOOK_SECRET, 'checkout.session.async_payment_succeeded', completedSession(s));
    const expired = signedEvent(
      WEBHOOK_SECRET,
      'checkout.session.expired',
      completedSession(s, { payment_status: 'unpaid', status: 'expired' }),
    );
    const answers = await Promise.all([
      ...Array.from({ length: 15 }, () => hook(done)),
      ...Array.from({ length: 10 }, () => hook(async)),
      hook(expired),
    ]);
    expect(answers.every((r) => r.status === 200)).toBe(true);
    const bodies = (await Promise.all(answers.map((r) => r.json()))) as { applied: boolean }[];
    expect(bodies.filter((b) => b.applied).length).toBeLessThanOrEqual(2); // one credit, maybe one expiry before it
    for (let i = 0; i < 5; i++) await hook(done);
    const b = await balance(stripeApp, a);
    expect(b.balance_cents).toBe(8000);
    expect(depositEntries(b)).toHaveLength(1);
    const after = (await call<Deposit>(stripeApp, 'GET', `/api/adv/deposits/${d.id}`, { token: a.token })).body;
    expect(after).toMatchObject({ status: 'paid', receipt_number: `R${a.id}-000001` });
  });

  it('a refund notice before the payment notice nets to zero; refunds are cumulative and replay-safe', async () => {
    const a = await account(stripeApp, 'advertiser');
    const first = await stripeDeposit(a, 60);
    expect((await hook(signedEvent(WEBHOOK_SECRET, 'charge.refunded', refundedCharge(first.s, 6000)))).status).toBe(
      200,
    );
    await hook(signedEvent(WEBHOOK_SECRET, 'checkout.session.completed', completedSession(first.s)));
    let b = await balance(stripeApp, a);
    expect(b.balance_cents).toBe(0);
    expect(
      (await call<Deposit>(stripeApp, 'GET', `/api/adv/deposits/${first.d.id}`, { token: a.token })).body.status,
    ).toBe('refunded');

    const second = await stripeDeposit(a, 100);
    await hook(signedEvent(WEBHOOK_SECRET, 'checkout.session.completed', completedSession(second.s)));
    const partial = signedEvent(WEBHOOK_SECRET, 'charge.refunded', refundedCharge(second.s, 2500));
    const full = signedEvent(WEBHOOK_SECRET, 'charge.refunded', refundedCharge(second.s, 10_000));
    await Promise.all([hook(partial), hook(partial), hook(full), hook(partial), hook(full)]);
    b = await balance(stripeApp, a);
    expect(b.balance_cents).toBe(0);
    const refunds = b.ledger.filter((e) => e.reason === `refund of deposit #${second.d.id}`);
    expect(refunds.reduce((sum, e) => sum + e.amount_cents, 0)).toBe(-10_000);
    expect(
      (await call<Deposit>(stripeApp, 'GET', `/api/adv/deposits/${second.d.id}`, { token: a.token })).body,
    ).toMatchObject({
      status: 'refunded',
      refunded_cents: 10_000,
    });
  });

  it('refuses a correctly signed event older than five minutes (a replay from a log)', async () => {
    const a = await account(stripeApp, 'advertiser');
    const { s } = await stripeDeposit(a, 15);
    const e = signedEvent(WEBHOOK_SECRET, 'checkout.session.completed', completedSession(s));
    const stale = Stripe.webhooks.generateTestHeaderString({
      payload: e.body,
      secret: WEBHOOK_SECRET,
      timestamp: Math.floor(Date.now() / 1000) - 600,
    });
    expect((await hook(e, stale)).status).toBe(400);
    expect((await balance(stripeApp, a)).balance_cents).toBe(0);
  });

  it('verifies the signature over the body as it arrives through an engine', async () => {
    const engine = await startEngine(redis.url, {}, { adminUpstream: stripeApp.base });
    try {
      const a = await account(stripeApp, 'advertiser');
      const { s } = await stripeDeposit(a, 33);
      // Non-ASCII text in the body: any re-encoding on the way would break the signature.
      const e = signedEvent(
        WEBHOOK_SECRET,
        'checkout.session.completed',
        completedSession(s, { customer_details: { name: 'Zoë Ünal 李' } }),
      );
      const send = (signature: string) =>
        fetch(`${engine.base}/payments/stripe/webhook`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'stripe-signature': signature },
          body: e.body,
        });
      expect((await send(e.signature.replace(/v1=(.)/, (_m, c: string) => `v1=${c === '0' ? '1' : '0'}`))).status).toBe(
        400,
      );
      expect((await send(e.signature)).status).toBe(200);
      expect((await balance(stripeApp, a)).balance_cents).toBe(3300);
    } finally {
      await engine.stop();
    }
  });

  it('credits nothing for a signed session that does not match the deposit', async () => {
    const a = await account(stripeApp, 'advertiser');
    const { d, s } = await stripeDeposit(a, 30);
    await hook(
      signedEvent(WEBHOOK_SECRET, 'checkout.session.completed', completedSession(s, { amount_total: 300_000 })),
    );
    await hook(
      signedEvent(
        WEBHOOK_SECRET,
        'checkout.session.completed',
        completedSession(s, { id: 'cs_other', currency: 'eur' }),
      ),
    );
    await hook(
      signedEvent(WEBHOOK_SECRET, 'checkout.session.completed', completedSession(s, { payment_status: 'unpaid' })),
    );
    expect((await balance(stripeApp, a)).balance_cents).toBe(0);
    expect((await call<Deposit>(stripeApp, 'GET', `/api/adv/deposits/${d.id}`, { token: a.token })).body.status).toBe(
      'pending',
    );
    await hook(
      signedEvent(WEBHOOK_SECRET, 'checkout.session.expired', completedSession(s, { payment_status: 'unpaid' })),
    );
    expect((await call<Deposit>(stripeApp, 'GET', `/api/adv/deposits/${d.id}`, { token: a.token })).body.status).toBe(
      'failed',
    );
  });

  it('an admin refund goes to Stripe once and the later notice takes nothing more', async () => {
    const a = await account(stripeApp, 'advertiser');
    const { d, s } = await stripeDeposit(a, 70);
    await hook(signedEvent(WEBHOOK_SECRET, 'checkout.session.completed', completedSession(s)));
    const r = await call<Deposit>(stripeApp, 'POST', `/api/admin/deposits/${d.id}/refund`, {
      token: stripeAdmin.token,
      json: {},
    });
    expect(r.status).toBe(200);
    expect(stripe.refunds.filter((x) => x.paymentIntent === s.paymentIntent)).toEqual([
      { paymentIntent: s.paymentIntent, idempotencyKey: `refund-${d.id}` },
    ]);
    await hook(signedEvent(WEBHOOK_SECRET, 'charge.refunded', refundedCharge(s, 7000)));
    expect((await balance(stripeApp, a)).balance_cents).toBe(0);
  });
});
