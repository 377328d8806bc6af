import { z } from 'zod';
import { emailSchema, oneOf, passwordSchema, usdAmount } from './api.ts';

// Shapes of issue 20's account paths: email verification, password reset, notification settings, API keys.

/** The secret part of an emailed link: 32 random bytes, base64url. */
export const mailTokenSchema = z
  .string({ error: (issue) => (issue.input === undefined ? 'is required' : 'must be a string') })
  .min(1, 'is required')
  .max(100, 'is invalid or expired')
  .regex(/^[A-Za-z0-9_-]+$/, 'is invalid or expired');

export const verifyEmailInputSchema = z.object({ token: mailTokenSchema });
export const passwordResetInputSchema = z.object({ email: emailSchema });
export const passwordResetConfirmInputSchema = z.object({ token: mailTokenSchema, password: passwordSchema });

/** `low_balance_usd: null` turns the notice off. */
export const notificationSettingsSchema = z.object({
  low_balance_usd: usdAmount({ min: 0.01, max: 1_000_000, places: 2 }).nullable(),
});
export type NotificationSettings = z.infer<typeof notificationSettingsSchema>;

/**
 * What a key may do (admin/src/auth/api-key-scopes.ts has the rule, admin/docs/api.md the table):
 * `read` the account's queries, `write` its changes, `stats` its statistics, `postback` its
 * conversions and postback settings.
 */
export const API_KEY_SCOPES = ['read', 'write', 'stats', 'postback'] as const;
export type ApiKeyScope = (typeof API_KEY_SCOPES)[number];

export const apiKeyCreateInputSchema = z.object({
  name: z
    .string({ error: (issue) => (issue.input === undefined ? 'is required' : 'must be a string') })
    .trim()
    .min(1, 'must not be empty')
    .max(100, 'must be at most 100 characters'),
  scopes: z
    .array(oneOf(API_KEY_SCOPES), {
      error: (issue) => (issue.input === undefined ? 'is required' : 'must be an array'),
    })
    .min(1, 'must name at least one scope')
    .max(API_KEY_SCOPES.length)
    .transform((s) => [...new Set(s)]),
});

export const apiKeySchema = z.object({
  id: z.number().int(),
  name: z.string(),
  scopes: z.array(z.enum(API_KEY_SCOPES)),
  /** The key's first characters, to tell keys apart; never enough to use. */
  prefix: z.string(),
  created_at: z.string(),
  last_used_at: z.string().nullable(),
});
export type ApiKey = z.infer<typeof apiKeySchema>;
/** The only answer that carries the key itself. */
export const apiKeyCreatedSchema = apiKeySchema.extend({ key: z.string() });

// ---------------------------------------------------------------- notices (the mail queue's jobs)

const money = z.number().int();
/**
 * One queued notice. It names its recipient by account (or, for a reset request, by the email typed)
 * and holds no secret: the links' tokens are made when the message is sent.
 */
export const noticeSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('verify_email'), user_id: z.number().int() }),
  /** Sign-up with an email that already has an account: the owner is told, the caller learns nothing. */
  z.object({ kind: z.literal('signup_existing'), user_id: z.number().int() }),
  z.object({ kind: z.literal('password_reset'), email: z.string() }),
  z.object({ kind: z.literal('password_changed'), user_id: z.number().int() }),
  z.object({ kind: z.literal('low_balance'), user_id: z.number().int(), balance_cents: money, threshold_cents: money }),
  z.object({
    kind: z.literal('creative_moderated'),
    user_id: z.number().int(),
    creative_id: z.number().int(),
    campaign_id: z.number().int(),
    title: z.string(),
    status: z.enum(['approved', 'rejected']),
    reason: z.string().nullable(),
  }),
  z.object({
    kind: z.literal('site_moderated'),
    user_id: z.number().int(),
    site_id: z.number().int(),
    domain: z.string(),
    status: z.enum(['approved', 'rejected']),
    reason: z.string().nullable(),
  }),
  z.object({
    kind: z.literal('postback_failing'),
    user_id: z.number().int(),
    campaign_id: z.number().int(),
    conversion_id: z.number().int(),
  }),
  /** What a campaign's automated rules did in one evaluation pass (docs/rules.md): one digest per advertiser and pass. */
  z.object({
    kind: z.literal('rule_actions'),
    user_id: z.number().int(),
    actions: z
      .array(
        z.object({
          campaign_id: z.number().int(),
          rule_name: z.string(),
          action: z.string(),
          target: z.string(),
          outcome: z.string(),
          detail: z.string(),
        }),
      )
      .max(200),
    /** Actions past the 200 listed. */
    more: z.number().int(),
  }),
  z.object({
    kind: z.literal('payout_paid'),
    user_id: z.number().int(),
    payout_id: z.number().int(),
    amount_cents: money,
    reference: z.string(),
  }),
]);
export type Notice = z.infer<typeof noticeSchema>;
export type NoticeKind = Notice['kind'];
