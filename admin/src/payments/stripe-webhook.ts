import type Stripe from 'stripe';
import type { Logger } from '../log.ts';
import type { DepositStore } from './deposit-store.ts';

export interface WebhookAnswer {
  status: number;
  body: Record<string, unknown>;
}

/** What one verified Stripe event means for a deposit. Pure: the handler below applies it. */
export type DepositAction =
  | {
      kind: 'paid';
      depositId: number | undefined;
      session: string;
      paymentRef: string;
      amountCents: number;
      currency: string;
    }
  | { kind: 'failed'; depositId: number | undefined; session: string }
  | { kind: 'refunded'; depositId: number | undefined; paymentRef: string; refundedCents: number }
  | { kind: 'ignored' };

const idFrom = (...candidates: (string | null | undefined)[]): number | undefined => {
  for (const c of candidates) {
    // Only what we wrote there: decimal digits of a safe integer.
    const n = c && /^[1-9]\d{0,14}$/.test(c) ? Number(c) : 0;
    if (n > 0) return n;
  }
  return undefined;
};
const refOf = (v: string | { id: string } | null | undefined): string => (typeof v === 'string' ? v : (v?.id ?? ''));

export function actionOf(event: Stripe.Event): DepositAction {
  switch (event.type) {
    case 'checkout.session.completed':
    case 'checkout.session.async_payment_succeeded': {
      const s = event.data.object;
      // A completed session with a delayed method (a bank debit) is not paid yet: its own event follows.
      if (s.payment_status !== 'paid') return { kind: 'ignored' };
      return {
        kind: 'paid',
        depositId: idFrom(s.client_reference_id, s.metadata?.deposit_id),
        session: s.id,
        paymentRef: refOf(s.payment_intent),
        amountCents: s.amount_total ?? -1,
        currency: s.currency ?? '',
      };
    }
    case 'checkout.session.async_payment_failed':
    case 'checkout.session.expired': {
      const s = event.data.object;
      return { kind: 'failed', depositId: idFrom(s.client_reference_id, s.metadata?.deposit_id), session: s.id };
    }
    case 'charge.refunded': {
      const c = event.data.object;
      return {
        kind: 'refunded',
        depositId: idFrom(c.metadata?.deposit_id),
        paymentRef: refOf(c.payment_intent),
        refundedCents: c.amount_refunded,
      };
    }
    default:
      return { kind: 'ignored' };
  }
}

/**
 * `POST /payments/stripe/webhook`: the signature (Stripe-Signature over the raw body with the
 * endpoint secret, 5-minute tolerance) is checked before anything is read; a bad one is a 400 and
 * changes nothing. Every action is idempotent in DepositStore, so replays, reordering and concurrent
 * deliveries credit once. Answers 200 for events it does not use, so Stripe stops resending them.
 */
export async function handleStripeWebhook(
  deps: { stripe: Stripe; secret: string; deposits: DepositStore; log: Logger },
  raw: Buffer,
  signature: string | undefined,
): Promise<WebhookAnswer> {
  if (!signature) return { status: 400, body: { error: 'Missing Stripe-Signature header', code: 'bad_request' } };
  let event: Stripe.Event;
  try {
    event = await deps.stripe.webhooks.constructEventAsync(raw, signature, deps.secret);
  } catch {
    deps.log.warn({ event: 'stripe.webhook_rejected' }, 'stripe webhook with a bad signature');
    return { status: 400, body: { error: 'Invalid signature', code: 'bad_request' } };
  }
  const action = actionOf(event);
  const { deposits, log } = deps;
  switch (action.kind) {
    case 'ignored':
      return { status: 200, body: { received: true, applied: false } };
    case 'paid': {
      const id = action.depositId ?? (await deposits.byRef(action.session));
      const dep = id === undefined ? undefined : await deposits.get(id);
      if (!dep) {
        log.warn({ event: 'stripe.unknown_deposit', session: action.session }, 'stripe paid a session we do not know');
        return { status: 200, body: { received: true, applied: false } };
      }
      // Signed by Stripe, but still checked against what we asked for: another session of the same
      // account naming this deposit, or a different amount, credits nothing.
      if (
        dep.providerSession !== action.session ||
        action.amountCents !== dep.amountCents ||
        action.currency !== 'usd'
      ) {
        log.error(
          { event: 'stripe.mismatch', depositId: dep.id, session: action.session, amount: action.amountCents },
          'stripe session does not match the deposit',
        );
        return { status: 200, body: { received: true, applied: false } };
      }
      if (action.paymentRef) await deposits.addRef(action.paymentRef, dep.id);
      const outcome = await deposits.markPaid(dep.id, action.paymentRef);
      if (outcome === 'credited')
        log.info(
          { event: 'deposit.paid', depositId: dep.id, advertiserId: dep.advertiserId, cents: dep.amountCents },
          'deposit credited',
        );
      return { status: 200, body: { received: true, applied: outcome === 'credited' } };
    }
    case 'failed': {
      const id = action.depositId ?? (await deposits.byRef(action.session));
      const dep = id === undefined ? undefined : await deposits.get(id);
      if (!dep || dep.providerSession !== action.session)
        return { status: 200, body: { received: true, applied: false } };
      return { status: 200, body: { received: true, applied: await deposits.markFailed(dep.id) } };
    }
    case 'refunded': {
      const id = action.depositId ?? (action.paymentRef ? await deposits.byRef(action.paymentRef) : undefined);
      const dep = id === undefined ? undefined : await deposits.get(id);
      if (!dep || (dep.paymentRef && action.paymentRef && dep.paymentRef !== action.paymentRef))
        return { status: 200, body: { received: true, applied: false } };
      const taken = await deposits.refundTo(dep.id, action.refundedCents);
      if (taken > 0) log.info({ event: 'deposit.refunded', depositId: dep.id, cents: taken }, 'deposit refunded');
      return { status: 200, body: { received: true, applied: taken > 0 } };
    }
  }
}
