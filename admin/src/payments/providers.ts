import type { BillingConfig } from '@adnet/schemas/config';
import Stripe from 'stripe';
import { newSecret } from '../auth/token-format.ts';
import type { DepositStore } from './deposit-store.ts';

export interface CheckoutRequest {
  depositId: number;
  advertiserId: number;
  amountCents: number;
}

export interface Checkout {
  /** The provider's session id ('' for the local provider): webhooks find the deposit by it. */
  session: string;
  url: string;
}

/**
 * Where advertisers pay. As with the AI and video providers, a local one is the default and a real
 * one is chosen by configuration (STRIPE_SECRET_KEY). Completion never comes back through here: the
 * local Pay page and Stripe's webhooks both end in DepositStore.markPaid, which credits once.
 */
export interface PaymentProvider {
  readonly name: 'local' | 'stripe';
  createCheckout(req: CheckoutRequest): Promise<Checkout>;
  /** Gives the whole payment back at the provider; the balance is reversed by the caller. */
  refund(dep: { depositId: number; paymentRef: string; amountCents: number }): Promise<void>;
}

export class PaymentProviderError extends Error {}

export const LOCAL_CHECKOUT_PREFIX = '/pay/local/';

/** No money moves: the checkout page is ours and its Pay button completes the payment. */
export class LocalPaymentProvider implements PaymentProvider {
  readonly name = 'local';
  constructor(
    private readonly baseUrl: string,
    private readonly deposits: DepositStore,
  ) {}

  async createCheckout(req: CheckoutRequest): Promise<Checkout> {
    const token = newSecret();
    await this.deposits.setLocalToken(token, req.depositId);
    return { session: '', url: `${this.baseUrl}${LOCAL_CHECKOUT_PREFIX}${token}` };
  }

  refund(): Promise<void> {
    return Promise.resolve();
  }
}

/** The Stripe client, pointed at another Stripe-compatible base URL when one is configured (tests). */
export function stripeClient(cfg: NonNullable<BillingConfig['stripe']>): Stripe {
  const base = cfg.apiBaseUrl ? new URL(cfg.apiBaseUrl) : undefined;
  return new Stripe(cfg.secretKey, {
    maxNetworkRetries: 2,
    timeout: 20_000,
    ...(base
      ? {
          host: base.hostname,
          port: base.port || (base.protocol === 'https:' ? 443 : 80),
          protocol: base.protocol === 'https:' ? 'https' : 'http',
        }
      : {}),
  });
}

/** Stripe Checkout Sessions in payment mode; the deposit id travels as client_reference_id and metadata. */
export class StripePaymentProvider implements PaymentProvider {
  readonly name = 'stripe';
  constructor(
    private readonly stripe: Stripe,
    private readonly baseUrl: string,
  ) {}

  async createCheckout(req: CheckoutRequest): Promise<Checkout> {
    const metadata = { deposit_id: String(req.depositId), advertiser_id: String(req.advertiserId) };
    try {
      const session = await this.stripe.checkout.sessions.create(
        {
          mode: 'payment',
          client_reference_id: String(req.depositId),
          line_items: [
            {
              quantity: 1,
              price_data: {
                currency: 'usd',
                unit_amount: req.amountCents,
                product_data: { name: `Advertising balance, deposit #${req.depositId}` },
              },
            },
          ],
          metadata,
          // Copied onto the charge, so a refund notice names the deposit even if it arrives first.
          payment_intent_data: { metadata },
          success_url: `${this.baseUrl}/cabinet/billing?deposit=${req.depositId}`,
          cancel_url: `${this.baseUrl}/cabinet/billing`,
        },
        // A retried request after a lost answer gets the same session, not a second one.
        { idempotencyKey: `deposit-${req.depositId}` },
      );
      if (!session.url) throw new PaymentProviderError('Stripe returned a session without a URL');
      return { session: session.id, url: session.url };
    } catch (err) {
      if (err instanceof PaymentProviderError) throw err;
      throw new PaymentProviderError(`Stripe refused the checkout session: ${(err as Error).message}`);
    }
  }

  async refund(dep: { depositId: number; paymentRef: string; amountCents: number }): Promise<void> {
    if (!dep.paymentRef) throw new PaymentProviderError('The deposit has no payment reference to refund');
    try {
      await this.stripe.refunds.create(
        { payment_intent: dep.paymentRef, metadata: { deposit_id: String(dep.depositId) } },
        { idempotencyKey: `refund-${dep.depositId}` },
      );
    } catch (err) {
      throw new PaymentProviderError(`Stripe refused the refund: ${(err as Error).message}`);
    }
  }
}

export function createPaymentProvider(
  billing: BillingConfig,
  baseUrl: string,
  deposits: DepositStore,
): PaymentProvider {
  const stripe = billing.stripe;
  return stripe
    ? new StripePaymentProvider(stripeClient(stripe), baseUrl)
    : new LocalPaymentProvider(baseUrl, deposits);
}
