import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import Stripe from 'stripe';

export interface FakeStripeSession {
  id: string;
  amount: number;
  depositId: string;
  paymentIntent: string;
}

export interface FakeStripe {
  url: string;
  sessions: FakeStripeSession[];
  refunds: { paymentIntent: string; idempotencyKey: string | undefined }[];
  /** Authorization headers seen: the secret key must travel as Stripe's clients send it. */
  auth: string[];
  close(): Promise<void>;
}

/**
 * Speaks the part of Stripe's HTTP API the product uses (form-encoded POSTs to /v1/checkout/sessions
 * and /v1/refunds, JSON answers), so the real `stripe` client talks to it through its host/port options.
 */
export async function fakeStripe(): Promise<FakeStripe> {
  const sessions: FakeStripeSession[] = [];
  const refunds: FakeStripe['refunds'] = [];
  const auth: string[] = [];
  const byKey = new Map<string, unknown>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const form = new URLSearchParams(Buffer.concat(chunks).toString());
      auth.push(String(req.headers.authorization ?? ''));
      const key = req.headers['idempotency-key'];
      const send = (status: number, body: unknown) => {
        if (typeof key === 'string') byKey.set(`${req.url ?? ''} ${key}`, body);
        res.writeHead(status, { 'content-type': 'application/json', 'request-id': 'req_fake' });
        res.end(JSON.stringify(body));
      };
      const replay = typeof key === 'string' ? byKey.get(`${req.url ?? ''} ${key}`) : undefined;
      if (replay) return send(200, replay);
      if (req.method === 'POST' && req.url === '/v1/checkout/sessions') {
        const n = sessions.length + 1;
        const s: FakeStripeSession = {
          id: `cs_test_${n}`,
          amount: Number(form.get('line_items[0][price_data][unit_amount]')),
          depositId: form.get('client_reference_id') ?? '',
          paymentIntent: `pi_test_${n}`,
        };
        sessions.push(s);
        return send(200, {
          id: s.id,
          object: 'checkout.session',
          url: `https://checkout.stripe.test/c/pay/${s.id}`,
          amount_total: s.amount,
          currency: 'usd',
          client_reference_id: s.depositId,
          metadata: { deposit_id: form.get('metadata[deposit_id]') },
          payment_status: 'unpaid',
          status: 'open',
        });
      }
      if (req.method === 'POST' && req.url === '/v1/refunds') {
        const pi = form.get('payment_intent') ?? '';
        refunds.push({ paymentIntent: pi, idempotencyKey: typeof key === 'string' ? key : undefined });
        return send(200, { id: `re_${refunds.length}`, object: 'refund', payment_intent: pi, status: 'succeeded' });
      }
      send(404, {
        error: {
          type: 'invalid_request_error',
          message: `Unrecognized request URL (${req.method ?? ''}: ${req.url ?? ''})`,
        },
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    sessions,
    refunds,
    auth,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

let eventSeq = 0;

/** A Stripe event as Stripe sends it, with a Stripe-Signature header made with the endpoint secret. */
export function signedEvent(
  secret: string,
  type: string,
  object: Record<string, unknown>,
): { body: string; signature: string } {
  const body = JSON.stringify({
    id: `evt_${++eventSeq}`,
    object: 'event',
    api_version: '2025-01-01',
    created: Math.floor(Date.now() / 1000),
    type,
    data: { object },
  });
  return { body, signature: Stripe.webhooks.generateTestHeaderString({ payload: body, secret }) };
}

export const completedSession = (s: FakeStripeSession, overrides: Record<string, unknown> = {}) => ({
  id: s.id,
  object: 'checkout.session',
  amount_total: s.amount,
  currency: 'usd',
  client_reference_id: s.depositId,
  metadata: { deposit_id: s.depositId },
  payment_intent: s.paymentIntent,
  payment_status: 'paid',
  status: 'complete',
  ...overrides,
});

export const refundedCharge = (s: FakeStripeSession, refunded: number) => ({
  id: `ch_${s.id}`,
  object: 'charge',
  amount: s.amount,
  amount_refunded: refunded,
  payment_intent: s.paymentIntent,
  metadata: { deposit_id: s.depositId },
  refunded: refunded >= s.amount,
});
