import { z } from 'zod';
import { problem, trimUrl } from './fields.ts';

/** Deposits, publishers' share and payouts (docs/billing.md). */
export const billingSlice = z
  .object({
    /** Publishers' share of the advertiser spend on their zones, in percent. */
    PUBLISHER_REVENUE_SHARE_PERCENT: z.coerce.number().int().min(0).max(100).default(70),
    /**
     * Stripe secret key (`sk_...`): deposits go through Stripe Checkout Sessions. Unset: the local provider, whose
     * checkout page is ours and whose Pay button completes the payment (no money moves).
     */
    STRIPE_SECRET_KEY: z.string().min(1).optional(),
    /** Signing secret (`whsec_...`) of the endpoint `POST /payments/stripe/webhook`; needed with STRIPE_SECRET_KEY. */
    STRIPE_WEBHOOK_SECRET: z.string().min(1).optional(),
    /** Another Stripe-compatible API base URL (a local server in tests). Unset: Stripe's own. */
    STRIPE_API_BASE_URL: z.url({ protocol: /^https?$/ }).optional(),
    /** Smallest deposit, in USD. */
    DEPOSIT_MIN_USD: z.coerce.number().min(0.5).max(1_000_000).default(10),
    /** Largest single deposit, in USD. */
    DEPOSIT_MAX_USD: z.coerce.number().min(1).max(1_000_000).default(10_000),
    /** Days a publisher's earnings wait before they move into the balance, for invalid-traffic adjustments. */
    PAYOUT_HOLD_DAYS: z.coerce.number().int().min(0).max(90).default(7),
    /** How often each admin process runs the daily close (earnings into balances, payouts due); it is idempotent per day. */
    PAYOUT_CLOSE_INTERVAL_MS: z.coerce.number().int().min(1_000).max(86_400_000).default(3_600_000),
    /** Days before the newest closable day that each close looks at again, posting later adjustments as ledger entries. */
    PAYOUT_ADJUST_DAYS: z.coerce.number().int().min(0).max(60).default(14),
  })
  .transform((e, ctx) => {
    if (e.STRIPE_SECRET_KEY && !e.STRIPE_WEBHOOK_SECRET)
      problem(ctx, 'STRIPE_WEBHOOK_SECRET', 'needed with STRIPE_SECRET_KEY: unsigned webhooks are never trusted');
    if (e.DEPOSIT_MIN_USD > e.DEPOSIT_MAX_USD) problem(ctx, 'DEPOSIT_MIN_USD', 'must not be above DEPOSIT_MAX_USD');
    return {
      stripe: e.STRIPE_SECRET_KEY
        ? {
            secretKey: e.STRIPE_SECRET_KEY,
            webhookSecret: e.STRIPE_WEBHOOK_SECRET ?? '',
            apiBaseUrl: e.STRIPE_API_BASE_URL === undefined ? undefined : trimUrl(e.STRIPE_API_BASE_URL),
          }
        : undefined,
      depositMinCents: Math.round(e.DEPOSIT_MIN_USD * 100),
      depositMaxCents: Math.round(e.DEPOSIT_MAX_USD * 100),
      payoutHoldDays: e.PAYOUT_HOLD_DAYS,
      payoutCloseIntervalMs: e.PAYOUT_CLOSE_INTERVAL_MS,
      payoutAdjustDays: e.PAYOUT_ADJUST_DAYS,
      publisherRevenueSharePercent: e.PUBLISHER_REVENUE_SHARE_PERCENT,
    };
  });
export type BillingConfig = z.output<typeof billingSlice>;
