import type { IncomingMessage, ServerResponse } from 'node:http';
import { toHttp } from '../errors.ts';
import { readBody } from '../http/body.ts';
import type { AdminConfig } from '@adnet/schemas/config';
import type { Logger } from '../log.ts';
import type { DepositStore } from './deposit-store.ts';
import type { PaymentProvider } from './providers.ts';
import { localCheckout, localCheckoutToken } from './local-checkout.ts';
import { stripeClient } from './providers.ts';
import { handleStripeWebhook } from './stripe-webhook.ts';

/** The deposits a checkout or a webhook settles, and which provider takes the money. */
export interface PaymentPorts {
  config: Pick<AdminConfig, 'billing'>;
  log: Logger;
  deposits: DepositStore;
  paymentProvider: Pick<PaymentProvider, 'name'>;
}

export const STRIPE_WEBHOOK_PATH = '/payments/stripe/webhook';
/** Stripe's events are a few KiB; anything far larger is not one. */
const WEBHOOK_LIMIT = 512 * 1024;

/**
 * The payment paths outside `/api`: the local provider's checkout page and Stripe's webhook. They
 * take no bearer token: the page's credential is its URL, the webhook's its signature.
 * Returns false when the path is neither.
 */
export function paymentRoutes(
  svc: PaymentPorts,
): (req: IncomingMessage, res: ServerResponse, path: string) => Promise<boolean> {
  const stripe = svc.config.billing.stripe;
  const client = stripe ? stripeClient(stripe) : undefined;
  const json = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
    const text = JSON.stringify(body);
    res.writeHead(status, {
      'content-type': 'application/json; charset=utf-8',
      'content-length': Buffer.byteLength(text),
      ...headers,
    });
    res.end(text);
  };
  return async (req, res, path) => {
    if (path === STRIPE_WEBHOOK_PATH) {
      if (req.method !== 'POST')
        return (
          json(res, 405, { error: 'Use POST on this path', code: 'method_not_allowed' }, { allow: 'POST' }),
          true
        );
      if (!stripe || !client) return (json(res, 404, { error: 'Stripe is not configured', code: 'not_found' }), true);
      let raw: Buffer;
      try {
        raw = await readBody(req, WEBHOOK_LIMIT);
      } catch (err) {
        const http = toHttp(err);
        return (json(res, http.status, http.body, { connection: 'close' }), true);
      }
      const sig = req.headers['stripe-signature'];
      const answer = await handleStripeWebhook(
        { stripe: client, secret: stripe.webhookSecret, deposits: svc.deposits, log: svc.log },
        raw,
        typeof sig === 'string' ? sig : undefined,
      );
      return (json(res, answer.status, answer.body), true);
    }
    const token = localCheckoutToken(path);
    if (token === undefined) return false;
    if (svc.paymentProvider.name !== 'local') return (json(res, 404, { error: 'Not found', code: 'not_found' }), true);
    if (req.method !== 'GET' && req.method !== 'POST')
      return (
        json(res, 405, { error: 'Use GET or POST on this path', code: 'method_not_allowed' }, { allow: 'GET, POST' }),
        true
      );
    // The form's own body (empty) is not needed: the POST itself is the payment.
    if (req.method === 'POST') req.resume();
    const page = await localCheckout(svc.deposits, svc.log, req.method, token);
    res.writeHead(page.status, { 'content-type': 'text/html; charset=utf-8', ...page.headers });
    res.end(page.html);
    return true;
  };
}
