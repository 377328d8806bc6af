import { z } from 'zod';
import { COUNTRY_CODES, LANGUAGE_CODES } from './geo.ts';
import { decimalPlaces } from './money.ts';
import { CAMPAIGN_FORMATS } from './formats.ts';

// A missing field reads "is required" rather than zod's type-mismatch text.
z.config({
  customError: (issue) => (issue.code === 'invalid_type' && issue.input === undefined ? 'is required' : undefined),
});

/** A schema-level message that still says "is required" when the field is absent. */
const msg = (text: string) => ({
  error: (issue: { input?: unknown }) => (issue.input === undefined ? 'is required' : text),
});

/** An enum whose error lists the allowed values. */
export function oneOf<const T extends readonly [string, ...string[]]>(values: T) {
  return z.enum(values, msg(`must be one of: ${values.join(', ')}`));
}

// ---------------------------------------------------------------- enums

export const ROLES = ['advertiser', 'publisher', 'admin'] as const;
export const roleSchema = z.enum(ROLES);
export type Role = z.infer<typeof roleSchema>;

export const VERTICALS = [
  'gambling',
  'betting',
  'dating',
  'nutra',
  'finance',
  'crypto',
  'ecommerce',
  'mobile_apps',
  'software',
  'games',
  'sweepstakes',
  'travel',
  'education',
  'entertainment',
  'health',
  'vpn',
  'other',
] as const;
export { CAMPAIGN_FORMATS };
export const VIDEO_FORMATS: ReadonlySet<CampaignFormat> = new Set(['video', 'floating_video']);
export const BID_TYPES = ['cpm', 'cpc'] as const;
export const CAMPAIGN_STATUSES = ['draft', 'active', 'paused', 'archived'] as const;
export const CREATIVE_STATUSES = ['pending_moderation', 'approved', 'rejected'] as const;
export const ORIENTATIONS = ['vertical', 'horizontal', 'square'] as const;
/** IAB standard display sizes a banner creative must match exactly. */
export const BANNER_SIZES = [
  [300, 250],
  [336, 280],
  [728, 90],
  [970, 90],
  [970, 250],
  [300, 600],
  [160, 600],
  [120, 600],
  [320, 50],
  [300, 50],
  [320, 100],
  [468, 60],
  [250, 250],
  [200, 200],
] as const;

export type CampaignFormat = (typeof CAMPAIGN_FORMATS)[number];
export type CampaignStatus = (typeof CAMPAIGN_STATUSES)[number];
export type CreativeStatus = (typeof CREATIVE_STATUSES)[number];

// ---------------------------------------------------------------- primitives

export const idSchema = z.coerce.number().int().positive().max(Number.MAX_SAFE_INTEGER);
export const emailSchema = z
  .string()
  .trim()
  .max(254)
  .pipe(z.email('must be a valid email address'))
  .transform((e) => e.toLowerCase());
export const passwordSchema = z.string().min(8, 'must be at least 8 characters').max(128, 'must be at most 128 characters');

function usdAmount(opts: { min: number; max: number; places: number }) {
  return z
    .number(msg('must be a number'))
    .min(opts.min, `must be at least ${opts.min}`)
    .max(opts.max, `must be at most ${opts.max}`)
    .refine((n) => decimalPlaces(n) <= opts.places, `must have at most ${opts.places} decimal places`);
}

const countryList = z
  .array(z.string().refine((c) => COUNTRY_CODES.has(c), 'must be a lowercase ISO 3166-1 alpha-2 country code'))
  .max(250)
  .transform((a) => [...new Set(a)]);
const languageList = z
  .array(z.string().refine((c) => LANGUAGE_CODES.has(c), 'must be a lowercase ISO 639-1 language code'))
  .max(100)
  .transform((a) => [...new Set(a)]);

export const httpUrlSchema = z
  .string()
  .trim()
  .max(2048, 'must be at most 2048 characters')
  .refine((u) => {
    try {
      const p = new URL(u.replaceAll('{click_id}', '00000000-0000-4000-8000-000000000000'));
      return (p.protocol === 'http:' || p.protocol === 'https:') && p.hostname.length > 0;
    } catch {
      return false;
    }
  }, 'must be an absolute http(s) URL');

// ---------------------------------------------------------------- auth

export const registerInputSchema = z.object({
  email: emailSchema,
  password: passwordSchema,
  role: z.enum(['advertiser', 'publisher'], msg('must be advertiser or publisher')),
});
export const tokenInputSchema = z.object({
  email: z
    .string()
    .trim()
    .min(1)
    .max(254)
    .transform((e) => e.toLowerCase()),
  password: z.string().min(1).max(128),
});
export const userRefSchema = z.object({ id: z.number().int(), role: roleSchema });
export const tokenResponseSchema = z.object({
  token: z.string(),
  token_type: z.literal('Bearer'),
  expires_at: z.string(),
  user: userRefSchema,
});
export const registerResponseSchema = z.object({ user: userRefSchema });
export type RegisterInput = z.infer<typeof registerInputSchema>;
export type TokenResponse = z.infer<typeof tokenResponseSchema>;

// ---------------------------------------------------------------- campaigns

const campaignName = z.string().trim().min(1, 'must not be empty').max(120, 'must be at most 120 characters');
const bidUsd = usdAmount({ min: 0.00001, max: 1000, places: 5 });
const dailyBudgetUsd = usdAmount({ min: 1, max: 1_000_000, places: 2 });

export const DEVICE_TARGETS = ['desktop', 'mobile', 'tablet'] as const;
const deviceList = z
  .array(oneOf(DEVICE_TARGETS))
  .max(3)
  .transform((a) => [...new Set(a)]);

export const campaignCreateInputSchema = z.object({
  name: campaignName,
  vertical: oneOf(VERTICALS),
  format: oneOf(CAMPAIGN_FORMATS),
  bid_type: oneOf(BID_TYPES),
  bid_usd: bidUsd,
  daily_budget_usd: dailyBudgetUsd,
  geo_include: countryList.default([]),
  languages: languageList.default([]),
  device_types: deviceList.default([]),
});
export type CampaignCreateInput = z.infer<typeof campaignCreateInputSchema>;

/** Format is fixed at creation: creatives are validated against it. */
export const campaignUpdateFieldsSchema = z.object({
  name: campaignName.optional(),
  vertical: campaignCreateInputSchema.shape.vertical.optional(),
  bid_type: campaignCreateInputSchema.shape.bid_type.optional(),
  bid_usd: bidUsd.optional(),
  daily_budget_usd: dailyBudgetUsd.optional(),
  geo_include: countryList.optional(),
  languages: languageList.optional(),
  device_types: deviceList.optional(),
});
export const campaignUpdateInputSchema = campaignUpdateFieldsSchema.extend({ id: idSchema });
export type CampaignUpdateInput = z.infer<typeof campaignUpdateInputSchema>;

export const campaignSchema = z.object({
  id: z.number().int(),
  advertiser_id: z.number().int(),
  name: z.string(),
  vertical: z.enum(VERTICALS),
  format: z.enum(CAMPAIGN_FORMATS),
  bid_type: z.enum(BID_TYPES),
  bid_micro_cents: z.number().int(),
  status: z.enum(CAMPAIGN_STATUSES),
  daily_budget_cents: z.number().int(),
  daily_spent_cents: z.number().int(),
  geo_include: z.array(z.string()),
  languages: z.array(z.string()),
  device_types: z.array(z.enum(DEVICE_TARGETS)),
  created_at: z.string(),
  updated_at: z.string(),
});
export type Campaign = z.infer<typeof campaignSchema>;
/** What is stored: the API object less the live spend counter. */
export type StoredCampaign = Omit<Campaign, 'daily_spent_cents'>;

// ---------------------------------------------------------------- creatives

const optionalText = (max: number) =>
  z
    .string()
    .trim()
    .max(max, `must be at most ${max} characters`)
    .optional()
    .transform((s) => (s === '' ? undefined : s));

/** Text parts of the multipart creative upload; per-format rules are in admin's creative-rules. */
export const creativeFieldsSchema = z.object({
  title: optionalText(60),
  body: optionalText(150),
  landing_url: httpUrlSchema.refine((u) => [...u.matchAll(/\{([^}]*)\}/g)].every((m) => m[1] === 'click_id'), 'the only macro allowed is {click_id}'),
  video_url: httpUrlSchema.optional(),
  cta_text: optionalText(20),
  orientation: oneOf(ORIENTATIONS).optional(),
});
export type CreativeFields = z.infer<typeof creativeFieldsSchema>;

export const creativeSchema = z.object({
  id: z.number().int(),
  campaign_id: z.number().int(),
  advertiser_id: z.number().int(),
  format: z.enum(CAMPAIGN_FORMATS),
  title: z.string().nullable(),
  body: z.string().nullable(),
  landing_url: z.string(),
  cta_text: z.string().nullable(),
  image_url: z.string().nullable(),
  image_width: z.number().int().nullable(),
  image_height: z.number().int().nullable(),
  video_url: z.string().nullable(),
  orientation: z.enum(ORIENTATIONS).nullable(),
  status: z.enum(CREATIVE_STATUSES),
  rejection_reason: z.string().nullable(),
  tracking_token: z.string(),
  created_at: z.string(),
  moderated_at: z.string().nullable(),
});
export type Creative = z.infer<typeof creativeSchema>;
export const creativeCreatedSchema = creativeSchema.extend({ moderation_eta_seconds: z.number().int() });

export const reasonInputSchema = z.object({
  id: idSchema,
  reason: z.string().trim().min(1, 'must not be empty').max(500, 'must be at most 500 characters'),
});

// ---------------------------------------------------------------- money

export const LEDGER_KINDS = ['credit', 'debit'] as const;
export const ledgerEntrySchema = z.object({
  id: z.string(),
  kind: z.enum(LEDGER_KINDS),
  amount_cents: z.number().int(),
  balance_after_cents: z.number().int(),
  reason: z.string(),
  created_at: z.string(),
});
export type LedgerEntry = z.infer<typeof ledgerEntrySchema>;
export const balanceSchema = z.object({
  balance_cents: z.number().int(),
  ledger: z.array(ledgerEntrySchema),
});
export const creditInputSchema = z.object({
  id: idSchema,
  amount_cents: z
    .number(msg('must be an integer number of cents'))
    .int('must be an integer number of cents')
    .min(1, 'must be at least 1')
    .max(100_000_000_00, 'must be at most 10000000000'),
  reason: z.string().trim().max(200).optional(),
});

// ---------------------------------------------------------------- profile

export const POSTBACK_MACROS = ['click_id', 'payout_cents', 'status', 'geo', 'device', 'os', 'browser', 'vertical', 'campaign_id'] as const;
const macroSet: ReadonlySet<string> = new Set(POSTBACK_MACROS);

export const postbackUrlSchema = httpUrlSchema.refine(
  (u) => [...u.matchAll(/\{([^}]*)\}/g)].every((m) => macroSet.has(m[1] ?? '')),
  `may only use the macros ${POSTBACK_MACROS.map((m) => `{${m}}`).join(', ')}`,
);

export const profileSchema = z.object({
  id: z.number().int(),
  email: z.string(),
  role: roleSchema,
  postback_secret: z.string(),
  postback_url: z.string().nullable(),
  created_at: z.string(),
});
export type Profile = z.infer<typeof profileSchema>;
export const profileUpdateInputSchema = z.object({
  postback_url: postbackUrlSchema.nullable().optional(),
});

// ---------------------------------------------------------------- conversions in

/**
 * What an advertiser's tracker sends to /postback/in. Every field is taken as it comes: the
 * secret is judged first (a stranger gets 401, not a list of bad fields), then the values.
 */
export const postbackInputSchema = z.object({
  secret: z.string().optional().describe("The advertiser's postback secret; or the X-Service-Secret header, which wins"),
  sig: z
    .string()
    .optional()
    .describe('HMAC-SHA256 under the secret of <click_id>|<payout>|<status>|<txid>, hex or base64; or the X-Service-Signature header, which wins'),
  click_id: z.string().optional().describe('The click UUID the landing page received'),
  payout: z.string().optional().describe('Integer number of cents'),
  status: z.string().optional().describe('pending, approved or rejected'),
  txid: z.string().optional().describe("The tracker's transaction id (1-128 printable characters); deduplicates per advertiser"),
});
export type PostbackInput = z.infer<typeof postbackInputSchema>;
export const postbackReceiptSchema = z.object({
  ok: z.literal(true),
  conversion_id: z.number().int(),
  /** True when the same status came again: acknowledged, counted once. */
  duplicate: z.boolean(),
  status: z.enum(['pending', 'approved', 'rejected']),
});
export type PostbackReceipt = z.infer<typeof postbackReceiptSchema>;

// ---------------------------------------------------------------- errors

/** 400: every invalid field by name. */
export const validationErrorBodySchema = z.object({ errors: z.record(z.string(), z.string()) });
/** Every other error status. */
export const errorBodySchema = z.object({ error: z.string(), code: z.string() });
export const okSchema = z.object({ ok: z.literal(true) });
