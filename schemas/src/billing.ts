import { z } from 'zod';
import { idSchema, usdAmount } from './api.ts';

// Deposits, receipts, statements and publisher payouts (docs/billing.md). Amounts go out as integer
// cents beside their dollar value; they come in as dollars with at most two decimals.

// ---------------------------------------------------------------- deposits

export const DEPOSIT_STATUSES = ['pending', 'paid', 'failed', 'refunded'] as const;
export type DepositStatus = (typeof DEPOSIT_STATUSES)[number];

/** The configured bounds of a deposit (DEPOSIT_MIN_USD, DEPOSIT_MAX_USD), in cents. */
export interface DepositLimits {
  minCents: number;
  maxCents: number;
}

/**
 * A deposit's fields. Without limits, the absolute bounds of any deposit (the documented shape); with
 * them, the configured bounds as well, checked in the same pass as every other field.
 */
export function depositInputSchemaFor(limits?: DepositLimits) {
  const absolute = usdAmount({ min: 0.01, max: 1_000_000, places: 2 });
  if (!limits) return z.object({ amount_usd: absolute });
  const usd = (cents: number) => (cents / 100).toFixed(2);
  return z.object({
    amount_usd: absolute
      .refine((n) => Math.round(n * 100) >= limits.minCents, `must be at least ${usd(limits.minCents)}`)
      .refine((n) => Math.round(n * 100) <= limits.maxCents, `must be at most ${usd(limits.maxCents)}`),
  });
}
export const depositInputSchema = depositInputSchemaFor();
/** The configured bounds of one deposit, for the form to state before anyone types (the same the API enforces). */
export const depositLimitsSchema = z.object({ min_cents: z.number().int(), max_cents: z.number().int() });
export type DepositInput = z.infer<typeof depositInputSchema>;

export const depositSchema = z.object({
  id: z.number().int(),
  status: z.enum(DEPOSIT_STATUSES),
  amount_cents: z.number().int(),
  amount_usd: z.number(),
  /** Cents given back so far (a refund, whole or partial). */
  refunded_cents: z.number().int(),
  provider: z.enum(['local', 'stripe']),
  /** Where the advertiser pays; null once the deposit is no longer pending. */
  checkout_url: z.string().nullable(),
  /** `R<advertiser>-<n>`: gap-free per advertiser, given when the payment is credited. */
  receipt_number: z.string().nullable(),
  created_at: z.string(),
  paid_at: z.string().nullable(),
});
export type Deposit = z.infer<typeof depositSchema>;
export const depositCreatedSchema = depositSchema;
export const depositListSchema = z.object({ deposits: z.array(depositSchema) });
/** An advertiser's deposits as the admin sees them, with whose they are by email (the page's title). */
export const adminDepositListSchema = depositListSchema.extend({ advertiser_email: z.string() });

export const adminRefundInputSchema = z.object({
  id: idSchema,
  reason: z.string().trim().min(1, 'must not be empty').max(500, 'must be at most 500 characters').optional(),
});

// ---------------------------------------------------------------- statements

const MONTH_RE = /^(\d{4})-(0[1-9]|1[0-2])$/;
export const monthSchema = z
  .string(msg('must be a month as YYYY-MM'))
  .regex(MONTH_RE, 'must be a month as YYYY-MM')
  // Nothing is older than the epoch, and Date.UTC reads years below 100 as 19xx.
  .refine((m) => m >= '1970-01', 'must be 1970-01 or later');
export const statementInputSchema = z.object({ month: monthSchema, format: z.enum(['json', 'csv']).default('json') });

export const statementCampaignSchema = z.object({
  campaign_id: z.number().int(),
  name: z.string(),
  impressions: z.number().int(),
  clicks: z.number().int(),
  conversions: z.number().int(),
  spent_cents: z.number().int(),
});
export const advStatementSchema = z.object({
  month: z.string(),
  /** The month in UTC, as the statistics' `tz=UTC` days. */
  from: z.string(),
  to: z.string(),
  campaigns: z.array(statementCampaignSchema),
  total_spent_cents: z.number().int(),
  deposits_cents: z.number().int(),
  refunds_cents: z.number().int(),
  csv: z.string().optional(),
});
export type AdvStatement = z.infer<typeof advStatementSchema>;

// ---------------------------------------------------------------- publisher payouts

export const PAYOUT_METHODS = ['paypal', 'wire', 'crypto'] as const;
export const PAYOUT_STATUSES = ['due', 'held', 'paid'] as const;
export type PayoutStatus = (typeof PAYOUT_STATUSES)[number];

const text = (max: number) =>
  z.string(msg('must be a string')).trim().min(1, 'is required').max(max, `must be at most ${max} characters`);
const IBAN_RE = /^[A-Z]{2}\d{2}[A-Z0-9]{11,30}$/;
const SWIFT_RE = /^[A-Z]{6}[A-Z0-9]{2}([A-Z0-9]{3})?$/;

/** Payment details by method: only recorded for whoever sends the money; nothing is transferred. */
export const payoutDetailsByMethod = {
  paypal: z.object({ email: z.email('must be an email address').max(254) }).strict(),
  wire: z
    .object({
      account_holder: text(140),
      iban: z
        .string(msg('must be a string'))
        .transform((s) => s.replace(/\s+/g, '').toUpperCase())
        .refine((s) => IBAN_RE.test(s) && ibanChecksumOk(s), 'must be a valid IBAN'),
      swift: z
        .string(msg('must be a string'))
        .transform((s) => s.trim().toUpperCase())
        .refine((s) => SWIFT_RE.test(s), 'must be a BIC/SWIFT code of 8 or 11 characters'),
      bank_name: text(140).optional(),
    })
    .strict(),
  crypto: z
    .object({
      currency: z.enum(['USDT', 'USDC', 'BTC', 'ETH'], msg('must be one of USDT, USDC, BTC, ETH')),
      network: z.enum(
        ['ethereum', 'tron', 'bitcoin', 'polygon'],
        msg('must be one of ethereum, tron, bitcoin, polygon'),
      ),
      address: z
        .string(msg('must be a string'))
        .trim()
        .regex(/^[A-Za-z0-9]{26,90}$/, 'must be 26-90 letters and digits'),
    })
    .strict(),
} as const;

/** ISO 13616 mod-97 check: catches a mistyped digit before money goes to the wrong account. */
export function ibanChecksumOk(iban: string): boolean {
  const moved = iban.slice(4) + iban.slice(0, 4);
  let rest = 0;
  for (const ch of moved) {
    const v = ch >= 'A' && ch <= 'Z' ? String(ch.charCodeAt(0) - 55) : ch;
    for (const d of v) rest = (rest * 10 + Number(d)) % 97;
  }
  return rest === 1;
}

export const PAYOUT_THRESHOLD_MIN_USD = 10;
const thresholdUsd = usdAmount({ min: PAYOUT_THRESHOLD_MIN_USD, max: 1_000_000, places: 2 });
export const payoutSettingsInputSchema = z.discriminatedUnion(
  'method',
  [
    z.object({ method: z.literal('paypal'), details: payoutDetailsByMethod.paypal, threshold_usd: thresholdUsd }),
    z.object({ method: z.literal('wire'), details: payoutDetailsByMethod.wire, threshold_usd: thresholdUsd }),
    z.object({ method: z.literal('crypto'), details: payoutDetailsByMethod.crypto, threshold_usd: thresholdUsd }),
  ],
  msg('must be one of paypal, wire, crypto'),
);
export type PayoutSettingsInput = z.infer<typeof payoutSettingsInputSchema>;
export const payoutSettingsSchema = z.object({
  method: z.enum(PAYOUT_METHODS),
  details: z.record(z.string(), z.string()),
  threshold_cents: z.number().int(),
  updated_at: z.string(),
});
export type PayoutSettings = z.infer<typeof payoutSettingsSchema>;

export const pubLedgerEntrySchema = z.object({
  id: z.string(),
  kind: z.enum(['earnings', 'adjustment', 'payout']),
  amount_cents: z.number().int(),
  balance_after_cents: z.number().int(),
  /** The earnings day (YYYY-MM-DD) or payout id the entry is about. */
  ref: z.string(),
  created_at: z.string(),
});
export type PubLedgerEntry = z.infer<typeof pubLedgerEntrySchema>;

export const pubBalanceSchema = z.object({
  /** Closed earnings not yet in a payout. */
  balance_cents: z.number().int(),
  /** In payouts that are due or held. */
  in_payouts_cents: z.number().int(),
  /** The newest day whose earnings are in the balance. */
  closed_through: z.string().nullable(),
  hold_days: z.number().int(),
  settings: payoutSettingsSchema.nullable(),
  ledger: z.array(pubLedgerEntrySchema),
});

export const payoutSchema = z.object({
  id: z.number().int(),
  publisher_id: z.number().int(),
  status: z.enum(PAYOUT_STATUSES),
  amount_cents: z.number().int(),
  method: z.enum(PAYOUT_METHODS),
  details: z.record(z.string(), z.string()),
  created_at: z.string(),
  paid_at: z.string().nullable(),
  reference: z.string().nullable(),
  hold_reason: z.string().nullable(),
});
export type Payout = z.infer<typeof payoutSchema>;
export const payoutListSchema = z.object({ payouts: z.array(payoutSchema) });
/** The admin's queue: each payout with its publisher's email, the name an admin pays to (and searches the provider by). */
export const adminPayoutSchema = payoutSchema.extend({ publisher_email: z.string() });
export const adminPayoutListSchema = z.object({ payouts: z.array(adminPayoutSchema) });
export const adminPayoutListInputSchema = z.object({
  status: z.enum(PAYOUT_STATUSES, msg('must be one of due, held, paid')).optional(),
  limit: z.coerce.number().int().min(1).max(500).default(100),
});
export const payoutPaidInputSchema = z.object({ id: idSchema, reference: text(200) });
export const payoutHoldInputSchema = z.object({ id: idSchema, reason: text(500) });

export const pubStatementSchema = z.object({
  month: z.string(),
  opening_balance_cents: z.number().int(),
  closing_balance_cents: z.number().int(),
  earnings_cents: z.number().int(),
  adjustments_cents: z.number().int(),
  payouts_cents: z.number().int(),
  entries: z.array(pubLedgerEntrySchema),
  csv: z.string().optional(),
});

function msg(text: string) {
  return { error: (issue: { input?: unknown }) => (issue.input === undefined ? 'is required' : text) };
}
