import type Stripe from 'stripe';
import { describe, expect, it } from 'vitest';
import { actionOf } from './stripe-webhook.ts';

const event = (type: string, object: Record<string, unknown>) =>
  ({ id: 'evt_1', object: 'event', type, data: { object } }) as unknown as Stripe.Event;
const session = {
  id: 'cs_1',
  client_reference_id: '7',
  metadata: { deposit_id: '7' },
  amount_total: 1000,
  currency: 'usd',
  payment_intent: 'pi_1',
};

describe('what a Stripe event means for a deposit', () => {
  it('pays only a paid session, naming the deposit, session, amount and payment intent', () => {
    expect(actionOf(event('checkout.session.completed', { ...session, payment_status: 'paid' }))).toEqual({
      kind: 'paid',
      depositId: 7,
      session: 'cs_1',
      paymentRef: 'pi_1',
      amountCents: 1000,
      currency: 'usd',
    });
    // A delayed method: completed but not paid yet; its own event follows.
    expect(actionOf(event('checkout.session.completed', { ...session, payment_status: 'unpaid' }))).toEqual({
      kind: 'ignored',
    });
    expect(
      actionOf(
        event('checkout.session.async_payment_succeeded', {
          ...session,
          payment_status: 'paid',
          payment_intent: { id: 'pi_2' },
        }),
      ),
    ).toMatchObject({
      kind: 'paid',
      paymentRef: 'pi_2',
    });
  });

  it('fails expired and failed sessions, refunds by the cumulative refunded amount, ignores the rest', () => {
    expect(actionOf(event('checkout.session.expired', session))).toEqual({
      kind: 'failed',
      depositId: 7,
      session: 'cs_1',
    });
    expect(actionOf(event('checkout.session.async_payment_failed', session))).toMatchObject({ kind: 'failed' });
    expect(
      actionOf(
        event('charge.refunded', {
          id: 'ch_1',
          amount_refunded: 400,
          payment_intent: 'pi_1',
          metadata: { deposit_id: '7' },
        }),
      ),
    ).toEqual({
      kind: 'refunded',
      depositId: 7,
      paymentRef: 'pi_1',
      refundedCents: 400,
    });
    expect(actionOf(event('invoice.paid', {}))).toEqual({ kind: 'ignored' });
  });

  it('takes no deposit id from junk', () => {
    for (const id of ['', '0', '-3', '1.5', '1e3', '0x10', ' 7', 'abc', '99999999999999999999'])
      expect(
        actionOf(event('checkout.session.expired', { id: 'cs', client_reference_id: id, metadata: {} })),
      ).toMatchObject({
        depositId: undefined,
      });
  });
});
