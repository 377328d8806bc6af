import { z } from 'zod';
import { deliverySchema } from './delivery.ts';
import { COUNTRY_CODES, LANGUAGE_CODES } from './geo.ts';
import { decimalPlaces } from './money.ts';
import { CAMPAIGN_FORMATS, INTERSTITIAL_OPT_IN_FORMATS } from './formats.ts';
import { checkHttpUrl } from './url.ts';
import { landingMacroProblem } from './landing-macros.ts';
import { canonicalTimeZone, WEEKDAYS } from './schedule.ts';
import type { UrlRules } from './url.ts';
import { CONNECTION_TYPES } from './openrtb.ts';
import { cpaTestBudgetUsd, targetCpaUsd } from './target-cpa.ts';
import { campaignAudienceLists } from './audiences.ts';
import {
  bidAdjustmentSchema,
  bidAdjustmentsInputSchema,
  NO_SOURCES,
  sourceListInputSchema,
  sourceListSchema,
  warningSchema,
} from './source-lists.ts';

// A missing field reads "is required" rather than zod's type-mismatch text.
z.config({
  customError: (issue) => (issue.code === 'invalid_type' && issue.input === undefined ? 'is required' : undefined),
});

/** A schema-level message that still says "is required" when the field is absent. */
/**
 * For a whole-object rule: run it whenever the fields it reads passed their own checks, even if
 * other fields did not, so one 400 names every problem (zod skips such rules after any issue).
 */
export const whenValid =
  (...fields: string[]) =>
  (payload: { issues: readonly { path?: readonly PropertyKey[] }[] }): boolean =>
    !payload.issues.some((i) => fields.includes(String(i.path?.[0])));

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
/** How a campaign spends its daily budget over the day (docs/delivery.md). */
export const PACINGS = ['even', 'asap'] as const;
/** How a campaign splits its traffic between its creatives (docs/delivery.md). */
export const ROTATIONS = ['optimize', 'even', 'weighted'] as const;
/** Moderation states, then the advertiser's own: an approved creative may be paused and resumed; archived is final. */
export const CREATIVE_STATUSES = ['pending_moderation', 'approved', 'rejected', 'paused', 'archived'] as const;
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
export const passwordSchema = z
  .string()
  .min(8, 'must be at least 8 characters')
  .max(128, 'must be at most 128 characters');

export function usdAmount(opts: { min: number; max: number; places: number }) {
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

/**
 * Every URL a client gives us goes through this one field: refused with the field's name when it
 * carries control characters, line separators, `]]>` or a scheme other than http(s); stored
 * normalised (`URL.href`). `macros` keeps `{name}` patterns as typed (landing and postback URLs).
 */
export function httpUrl(rules: UrlRules = {}) {
  return z
    .string(msg('must be a string'))
    .max(2048, 'must be at most 2048 characters')
    .transform((raw, ctx) => {
      const checked = checkHttpUrl(raw, rules);
      if (checked.ok) return checked.href;
      ctx.addIssue({ code: 'custom', message: checked.message, input: raw });
      return z.NEVER;
    });
}
export const httpUrlSchema = httpUrl();

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
/** The cabinet's sign-in (`auth.session`): the token is in the HttpOnly cookie, never in the answer. */
export const sessionResponseSchema = z.object({
  expires_at: z.string(),
  user: userRefSchema.extend({ email: z.string() }),
});
/** The same answer whether the email was new or already taken: sign-up confirms no account. */
export const registerResponseSchema = z.object({ ok: z.literal(true) });
export const passwordChangeInputSchema = z.object({
  current_password: z.string(msg('must be a string')).min(1, 'is required').max(128, 'must be at most 128 characters'),
  new_password: passwordSchema,
});
export type RegisterInput = z.infer<typeof registerInputSchema>;
export type TokenResponse = z.infer<typeof tokenResponseSchema>;
export type TokenInput = z.infer<typeof tokenInputSchema>;
export type SessionResponse = z.infer<typeof sessionResponseSchema>;

// ---------------------------------------------------------------- campaigns

const campaignName = z.string().trim().min(1, 'must not be empty').max(120, 'must be at most 120 characters');
const bidUsd = usdAmount({ min: 0.00001, max: 1000, places: 5 });
const dailyBudgetUsd = usdAmount({ min: 1, max: 1_000_000, places: 2 });
/** A lifetime cap on top of the daily budget. */
const totalBudgetUsd = usdAmount({ min: 1, max: 100_000_000, places: 2 });

export const DEVICE_TARGETS = ['desktop', 'mobile', 'tablet'] as const;
/** Operating-system families a campaign can target; `other` is any OS the engine recognises as none of these. */
export const OS_FAMILIES = ['android', 'ios', 'windows', 'macos', 'linux', 'chromeos', 'other'] as const;
/** Browser families a campaign can target; `other` is any browser the engine recognises as none of these. */
export const BROWSER_FAMILIES = ['chrome', 'safari', 'firefox', 'edge', 'samsung', 'opera', 'other'] as const;
export { CONNECTION_TYPES };
export type OsFamily = (typeof OS_FAMILIES)[number];
export type BrowserFamily = (typeof BROWSER_FAMILIES)[number];

/** A targeting list drawn from `values`: duplicates dropped, empty means every value. */
const targetList = <const T extends readonly [string, ...string[]]>(values: T) =>
  z
    .array(oneOf(values))
    .max(values.length)
    .transform((a) => [...new Set(a)]);
const deviceList = targetList(DEVICE_TARGETS);
const osList = targetList(OS_FAMILIES);
const browserList = targetList(BROWSER_FAMILIES);
const connectionList = targetList(CONNECTION_TYPES);

// ---- frequency cap and schedule (docs/delivery.md): campaigns stored before them have none (no cap, always on, UTC)

const wholeNumber = (min: number, max: number) => {
  const m = `must be a whole number from ${min} to ${max}`;
  return z.number(msg(m)).int(m).min(min, m).max(max, m);
};
export const frequencyCapSchema = z
  .object({ impressions: wholeNumber(1, 1000), period_hours: wholeNumber(1, 720) })
  .describe('At most `impressions` ads of the campaign per user within `period_hours` of the first');
const instant = z.iso
  .datetime({ offset: true, error: 'must be an ISO 8601 timestamp with an offset, e.g. 2026-12-01T09:00:00+01:00' })
  .transform((s) => new Date(s).toISOString());
const hourList = z.array(wholeNumber(0, 23)).max(24).optional();
const daypartingSchema = z
  .strictObject({
    mon: hourList,
    tue: hourList,
    wed: hourList,
    thu: hourList,
    fri: hourList,
    sat: hourList,
    sun: hourList,
  })
  .transform((d) =>
    Object.fromEntries(WEEKDAYS.filter((w) => d[w]?.length).map((w) => [w, [...new Set(d[w])].sort((a, b) => a - b)])),
  )
  .refine((d) => Object.keys(d).length > 0, 'must list at least one hour (null for none)')
  .describe(
    'For each weekday (mon..sun), the local hours 0-23 in which the campaign serves; a day not listed serves no hour',
  );
const TZ_MESSAGE = 'must be an IANA time zone name, e.g. Europe/Berlin';
const timeZone = z.string(msg(TZ_MESSAGE)).transform((tz, ctx) => {
  const name = canonicalTimeZone(tz);
  if (name) return name;
  ctx.addIssue({ code: 'custom', message: TZ_MESSAGE, input: tz });
  return z.NEVER;
});
const capScheduleCreate = {
  frequency_cap: frequencyCapSchema.nullable().default(null),
  start_at: instant.nullable().default(null),
  end_at: instant.nullable().default(null),
  dayparting: daypartingSchema.nullable().default(null),
  timezone: timeZone.default('UTC'),
};
/** On update, null removes a cap, a start, an end or the dayparting. */
const capScheduleUpdate = {
  frequency_cap: frequencyCapSchema.nullable().optional(),
  start_at: instant.nullable().optional(),
  end_at: instant.nullable().optional(),
  dayparting: daypartingSchema.nullable().optional(),
  timezone: timeZone.optional(),
};
const capScheduleStored = {
  frequency_cap: z.object({ impressions: z.number().int(), period_hours: z.number().int() }).nullable().default(null),
  start_at: z.string().nullable().default(null),
  end_at: z.string().nullable().default(null),
  dayparting: z.partialRecord(z.enum(WEEKDAYS), z.array(z.number().int())).nullable().default(null),
  timezone: z.string().default('UTC'),
};
export const END_BEFORE_START = 'must be after start_at';
/** `end_at` after `start_at`, named on `end_at` with the other fields' problems. */
const endAfterStart = [
  (c: { start_at?: string | null; end_at?: string | null }, ctx: z.RefinementCtx) => {
    if (c.start_at && c.end_at && c.end_at <= c.start_at)
      ctx.addIssue({ code: 'custom', path: ['end_at'], message: END_BEFORE_START });
  },
  { when: whenValid('start_at', 'end_at') },
] as const;

const interstitialFlag = z.boolean({ error: 'must be true or false' });
const OPT_IN: ReadonlySet<string> = new Set(INTERSTITIAL_OPT_IN_FORMATS);
/** Why `interstitial: true` does not fit a campaign of `format`, or undefined: only banner and native campaigns opt in. */
export function interstitialOptInProblem(format: string, interstitial: boolean | undefined): string | undefined {
  return interstitial && !OPT_IN.has(format)
    ? `is only for ${INTERSTITIAL_OPT_IN_FORMATS.join(' and ')} campaigns (an interstitial campaign is one already)`
    : undefined;
}

/** A new campaign's fields, before the whole-object checks: the traffic estimate (estimate.ts) picks its targeting from them. */
export const campaignCreateFields = z.object({
  name: campaignName,
  vertical: oneOf(VERTICALS),
  format: oneOf(CAMPAIGN_FORMATS),
  bid_type: oneOf(BID_TYPES),
  bid_usd: bidUsd,
  daily_budget_usd: dailyBudgetUsd,
  geo_include: countryList.default([]),
  languages: languageList.default([]),
  device_types: deviceList.default([]),
  rotation: oneOf(ROTATIONS).default('optimize'),
  pacing: oneOf(PACINGS).default('even'),
  total_budget_usd: totalBudgetUsd.optional(),
  os_include: osList.default([]),
  browser_include: browserList.default([]),
  connection_types: connectionList.default([]),
  ...capScheduleCreate,
  // Traffic sources and bid adjustments (schemas/src/source-lists.ts).
  sources: sourceListInputSchema.optional(),
  bid_adjustments: bidAdjustmentsInputSchema.default([]),
  // Target CPA (schemas/src/target-cpa.ts): bid_usd becomes the highest bid.
  target_cpa_usd: targetCpaUsd.optional(),
  cpa_test_budget_usd: cpaTestBudgetUsd.optional(),
  // Audiences (schemas/src/audiences.ts): the advertiser's own, checked by the procedure.
  audiences_include: campaignAudienceLists.audiences_include.default([]),
  audiences_exclude: campaignAudienceLists.audiences_exclude.default([]),
  /** Banner and native campaigns: also fill interstitial zones with their creative (docs/delivery.md, interstitials). */
  interstitial: interstitialFlag.optional(),
});
export const campaignCreateInputSchema = campaignCreateFields.superRefine(...endAfterStart).superRefine(
  (c, ctx) => {
    const problem = interstitialOptInProblem(c.format, c.interstitial);
    if (problem) ctx.addIssue({ code: 'custom', path: ['interstitial'], message: problem });
  },
  { when: whenValid('format', 'interstitial') },
);
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
  rotation: oneOf(ROTATIONS).optional(),
  pacing: oneOf(PACINGS).optional(),
  /** null removes the cap. */
  total_budget_usd: totalBudgetUsd.nullable().optional(),
  os_include: osList.optional(),
  browser_include: browserList.optional(),
  connection_types: connectionList.optional(),
  ...capScheduleUpdate,
  // Each replaces the whole list; sources/add and sources/remove edit the source list in place.
  sources: sourceListInputSchema.optional(),
  bid_adjustments: bidAdjustmentsInputSchema.optional(),
  /** null turns the target off (the zones' bids and exclusions with it); a test budget left out is twice the target. */
  target_cpa_usd: targetCpaUsd.nullable().optional(),
  cpa_test_budget_usd: cpaTestBudgetUsd.optional(),
  audiences_include: campaignAudienceLists.audiences_include.optional(),
  audiences_exclude: campaignAudienceLists.audiences_exclude.optional(),
  /** Banner and native campaigns only (checked against the stored format). */
  interstitial: interstitialFlag.optional(),
});
export const campaignUpdateInputSchema = campaignUpdateFieldsSchema
  .extend({ id: idSchema })
  .superRefine(...endAfterStart);
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
  /** Today's spend exactly, in nano-dollars (10,000,000 to the cent): a sub-cent spend that `daily_spent_cents` reads as 0. */
  daily_spent_nano: z.number().int(),
  /** Spent since the campaign began, all days. */
  total_spent_cents: z.number().int(),
  /** Whether it serves right now, and every reason it does not (schemas/src/delivery.ts). */
  delivery: deliverySchema,
  geo_include: z.array(z.string()),
  languages: z.array(z.string()),
  device_types: z.array(z.enum(DEVICE_TARGETS)),
  // Campaigns stored before rotation existed optimize.
  rotation: z.enum(ROTATIONS).default('optimize'),
  // Stored before pacing existed: even.
  pacing: z.enum(PACINGS).default('even'),
  /** Lifetime cap, null for none (stored before it existed: none). */
  total_budget_cents: z.number().int().nullable().default(null),
  // Campaigns stored before these fields existed read as untargeted.
  os_include: z.array(z.enum(OS_FAMILIES)).default([]),
  browser_include: z.array(z.enum(BROWSER_FAMILIES)).default([]),
  connection_types: z.array(z.enum(CONNECTION_TYPES)).default([]),
  ...capScheduleStored,
  // Stored before bid adjustments existed: none.
  bid_adjustments: z.array(bidAdjustmentSchema).default([]),
  /** Target cost per conversion (`target_cpa_usd`), null for none (stored before it existed: none). */
  target_cpa_cents: z.number().int().nullable().default(null),
  /** Spend per zone without a conversion before it is excluded; null without a target. */
  cpa_test_budget_cents: z.number().int().nullable().default(null),
  /** Audience ids: the campaign serves only members of one of `audiences_include` (when any), never members of one of `audiences_exclude`. Stored before audiences existed: none. */
  audiences_include: z.array(z.number().int()).default([]),
  audiences_exclude: z.array(z.number().int()).default([]),
  /** Banner and native campaigns: whether they also fill interstitial zones (stored before it existed: no). */
  interstitial: z.boolean().default(false),
  /** Kept apart from the campaign (config kind `campaign_sources`), so the campaign stays small; joined in the answer. */
  sources: sourceListSchema.default(NO_SOURCES),
  created_at: z.string(),
  updated_at: z.string(),
});

/** `GET /api/admin/campaigns`: campaigns named for admins to pick (deals), of one advertiser or of all. */
export const adminCampaignsInputSchema = z.object({ advertiser_id: idSchema.optional() }).optional();
export const adminCampaignSummarySchema = campaignSchema.pick({
  id: true,
  advertiser_id: true,
  name: true,
  status: true,
  format: true,
});
export type Campaign = z.infer<typeof campaignSchema>;
/** What is stored: the API object less what is live (today's spend, the delivery status) and the source list (stored apart). */
export type StoredCampaign = Omit<
  Campaign,
  | 'daily_spent_cents'
  | 'daily_spent_nano'
  | 'total_spent_cents'
  | 'delivery'
  | 'sources'
  | 'bid_adjustments'
  | 'target_cpa_cents'
  | 'cpa_test_budget_cents'
  | 'audiences_include'
  | 'audiences_exclude'
  | 'interstitial'
> & {
  /** Absent on campaigns stored before bid adjustments existed: none. */
  bid_adjustments?: Campaign['bid_adjustments'];
  /** Absent on campaigns stored before target CPA existed: none. */
  target_cpa_cents?: number | null;
  cpa_test_budget_cents?: number | null;
  /** Absent on campaigns stored before audiences existed: none. */
  audiences_include?: Campaign['audiences_include'];
  audiences_exclude?: Campaign['audiences_exclude'];
  /** Absent on campaigns stored before interstitials existed, and on those that never opted in: no. */
  interstitial?: boolean;
};
/** A campaign change's answer: the campaign and what was accepted but may not do what was meant (unknown zones or sites). */
export const campaignWithWarningsSchema = campaignSchema.extend({ warnings: z.array(warningSchema) });

// ---------------------------------------------------------------- creatives

const optionalText = (max: number) =>
  z
    .string()
    .trim()
    .max(max, `must be at most ${max} characters`)
    .optional()
    .transform((s) => (s === '' ? undefined : s));

/** A creative's share under `rotation: weighted`, relative to its siblings' (multipart sends it as text). */
const creativeWeight = z.coerce
  .number({ error: 'must be a whole number from 0 to 100' })
  .int('must be a whole number from 0 to 100')
  .min(0, 'must be a whole number from 0 to 100')
  .max(100, 'must be a whole number from 0 to 100');

/** A landing URL: an http(s) URL whose `{macros}` are landing macros, after the host (schemas/src/landing-macros.ts). */
const landingUrl = httpUrl({ macros: true }).superRefine((url, ctx) => {
  const problem = landingMacroProblem(url);
  if (problem) ctx.addIssue({ code: 'custom', message: problem });
});

/** The length a video creative is taken to have when nobody said (the VAST `<Duration>` every video carried before creatives had one). */
export const DEFAULT_VIDEO_DURATION_S = 30;
export const MAX_VIDEO_DURATION_S = 600;
const videoDuration = z.coerce
  .number({ error: `must be a whole number of seconds from 1 to ${MAX_VIDEO_DURATION_S}` })
  .int(`must be a whole number of seconds from 1 to ${MAX_VIDEO_DURATION_S}`)
  .min(1, `must be a whole number of seconds from 1 to ${MAX_VIDEO_DURATION_S}`)
  .max(MAX_VIDEO_DURATION_S, `must be a whole number of seconds from 1 to ${MAX_VIDEO_DURATION_S}`);

/** A video creative's length: its own when it is a whole number of seconds within bounds (as the API stores it), else the default. */
export const videoDurationOf = (c: { duration_s?: number | null | undefined }): number => {
  const d = c.duration_s;
  return typeof d === 'number' && Number.isInteger(d) && d >= 1 && d <= MAX_VIDEO_DURATION_S
    ? d
    : DEFAULT_VIDEO_DURATION_S;
};

/** Text parts of the multipart creative upload; per-format rules are in admin's creative-rules. */
export const creativeFieldsSchema = z.object({
  title: optionalText(60),
  body: optionalText(150),
  landing_url: landingUrl,
  video_url: httpUrlSchema.optional(),
  /** A video creative's length in whole seconds (VAST `<Duration>`, OpenRTB `minduration`/`maxduration`); unset: DEFAULT_VIDEO_DURATION_S. */
  duration_s: videoDuration.optional(),
  cta_text: optionalText(20),
  orientation: oneOf(ORIENTATIONS).optional(),
  weight: creativeWeight.optional(),
});
export type CreativeFields = z.infer<typeof creativeFieldsSchema>;

/** In an edit, a text to set, or `null` (or an empty text) to clear it; absent: kept. */
const clearableText = (max: number) =>
  z
    .string()
    .trim()
    .max(max, `must be at most ${max} characters`)
    .nullable()
    .optional()
    .transform((s) => (s === '' ? null : s));

/**
 * `PATCH /api/adv/creatives/{id}`: new text, links or weight. Changing what the ad shows or where it
 * leads sends it back to moderation; a weight alone does not. A new image is a new creative. Title,
 * body and call to action can be cleared (`null` or `""`) where the format does not require them.
 */
export const creativeUpdateInputSchema = creativeFieldsSchema
  .omit({ orientation: true })
  .partial()
  .extend({
    id: idSchema,
    landing_url: creativeFieldsSchema.shape.landing_url.optional(),
    title: clearableText(60),
    body: clearableText(150),
    cta_text: clearableText(20),
  });
export type CreativeUpdateInput = z.infer<typeof creativeUpdateInputSchema>;

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
  // Creatives stored before durations existed have none: DEFAULT_VIDEO_DURATION_S.
  duration_s: z.number().int().nullable().optional(),
  orientation: z.enum(ORIENTATIONS).nullable(),
  // Creatives stored before weights existed weigh in fully.
  weight: z.number().int().default(100),
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

export const POSTBACK_MACROS = [
  'click_id',
  'payout_cents',
  'status',
  'geo',
  'device',
  'os',
  'browser',
  'vertical',
  'campaign_id',
  'format',
] as const;
const macroSet: ReadonlySet<string> = new Set(POSTBACK_MACROS);

export const postbackUrlSchema = httpUrl({ macros: true }).refine(
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
  secret: z
    .string()
    .optional()
    .describe("The advertiser's postback secret; or the X-Service-Secret header, which wins"),
  sig: z
    .string()
    .optional()
    .describe(
      'HMAC-SHA256 under the secret of <click_id>|<payout>|<status>|<txid>, hex or base64; or the X-Service-Signature header, which wins',
    ),
  click_id: z.string().optional().describe('The click UUID the landing page received'),
  payout: z.string().optional().describe('Integer number of cents'),
  status: z.string().optional().describe('pending, approved or rejected'),
  txid: z
    .string()
    .optional()
    .describe("The tracker's transaction id (1-128 printable characters); deduplicates per advertiser"),
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

/**
 * Why an outgoing postback attempt failed, as advertisers see it (API, cabinet). A host that does not
 * resolve and one that resolves to an address that is not public are one reason: told apart, they
 * would tell an advertiser which internal names exist on our network. The log keeps which it was.
 */
export const postbackFailureReasonSchema = z.enum([
  'bad_pattern',
  'invalid_url',
  'host_not_public',
  'timeout',
  'connection',
  'bad_redirect',
  'too_many_redirects',
  'http_status',
]);
export type PostbackFailureReason = z.infer<typeof postbackFailureReasonSchema>;

// ---------------------------------------------------------------- errors

/** 400: every invalid field by name. */
export const validationErrorBodySchema = z.object({ errors: z.record(z.string(), z.string()) });
/** Every other error status. */
export const errorBodySchema = z.object({ error: z.string(), code: z.string() });
export const okSchema = z.object({ ok: z.literal(true) });
