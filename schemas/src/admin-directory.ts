import { z } from 'zod';
import { CAMPAIGN_STATUSES, CREATIVE_STATUSES, VERTICALS, creativeSchema, ledgerEntrySchema } from './api.ts';
import { CAMPAIGN_FORMATS } from './formats.ts';
import { SITE_CATEGORY_NAMES } from './site-categories.ts';
import { SITE_STATUSES } from './publisher.ts';

// The admin's directory (docs/admin-directory.md): advertisers, publishers, sites and campaigns found by
// name, filtered, sorted and paged, and one page per account and per campaign. Every list is bounded:
// at most DIRECTORY_PAGE_MAX rows a request.

export const DIRECTORY_PAGE_MAX = 100;
/** Longer than any email or domain is allowed to be, short enough that matching stays cheap. */
export const DIRECTORY_QUERY_MAX = 100;

const sortDir = z.enum(['asc', 'desc'], { error: 'must be asc or desc' }).default('asc');
const page = {
  /** Matched case-insensitively against names, emails, domains and ids; empty: everything. */
  q: z
    .string({ error: 'must be text' })
    .trim()
    .max(DIRECTORY_QUERY_MAX, `must be at most ${DIRECTORY_QUERY_MAX} characters`)
    .default(''),
  offset: z.coerce
    .number({ error: 'must be a whole number' })
    .int('must be a whole number')
    .min(0, 'must be at least 0')
    .max(1_000_000, 'must be at most 1000000')
    .default(0),
  limit: z.coerce
    .number({ error: 'must be a whole number' })
    .int('must be a whole number')
    .min(1, 'must be at least 1')
    .max(DIRECTORY_PAGE_MAX, `must be at most ${DIRECTORY_PAGE_MAX}`)
    .default(25),
  dir: sortDir,
};
const sortOf = <const T extends readonly [string, ...string[]]>(keys: T) =>
  z.enum(keys, { error: `must be one of ${keys.join(', ')}` }).default(keys[0]);

export const ADVERTISER_SORTS = ['id', 'email', 'balance', 'created_at'] as const;
export const PUBLISHER_SORTS = ['id', 'email', 'sites', 'created_at'] as const;
export const SITE_SORTS = ['id', 'domain', 'status', 'publisher'] as const;
export const CAMPAIGN_SORTS = ['id', 'name', 'status', 'advertiser'] as const;

export const advertiserSearchInputSchema = z.object({ ...page, sort: sortOf(ADVERTISER_SORTS) });
export const publisherSearchInputSchema = z.object({ ...page, sort: sortOf(PUBLISHER_SORTS) });
export const siteSearchInputSchema = z.object({
  ...page,
  sort: sortOf(SITE_SORTS),
  status: z.enum(SITE_STATUSES, { error: `must be one of ${SITE_STATUSES.join(', ')}` }).optional(),
});
export const campaignSearchInputSchema = z.object({
  ...page,
  sort: sortOf(CAMPAIGN_SORTS),
  status: z.enum(CAMPAIGN_STATUSES, { error: `must be one of ${CAMPAIGN_STATUSES.join(', ')}` }).optional(),
});
export type AdvertiserSearchInput = z.infer<typeof advertiserSearchInputSchema>;
export type PublisherSearchInput = z.infer<typeof publisherSearchInputSchema>;
export type SiteSearchInput = z.infer<typeof siteSearchInputSchema>;
export type CampaignSearchInput = z.infer<typeof campaignSearchInputSchema>;

const pageOf = <T extends z.ZodType>(row: T) =>
  z.object({ total: z.number().int(), offset: z.number().int(), limit: z.number().int(), items: z.array(row) });

export const advertiserRowSchema = z.object({
  id: z.number().int(),
  email: z.string(),
  balance_cents: z.number().int(),
  campaigns: z.number().int(),
  created_at: z.string(),
});
export const publisherRowSchema = z.object({
  id: z.number().int(),
  email: z.string(),
  sites: z.number().int(),
  created_at: z.string(),
});
export const siteRowSchema = z.object({
  id: z.number().int(),
  domain: z.string(),
  status: z.enum(SITE_STATUSES),
  category: z.enum(SITE_CATEGORY_NAMES),
  publisher_id: z.number().int(),
  publisher_email: z.string(),
});
export const campaignRowSchema = z.object({
  id: z.number().int(),
  name: z.string(),
  status: z.enum(CAMPAIGN_STATUSES),
  format: z.enum(CAMPAIGN_FORMATS),
  vertical: z.enum(VERTICALS),
  advertiser_id: z.number().int(),
  advertiser_email: z.string(),
});
export type AdvertiserRow = z.infer<typeof advertiserRowSchema>;
export type PublisherRow = z.infer<typeof publisherRowSchema>;
export type SiteRow = z.infer<typeof siteRowSchema>;
export type CampaignRow = z.infer<typeof campaignRowSchema>;

export const advertiserPageSchema = pageOf(advertiserRowSchema);
export const publisherPageSchema = pageOf(publisherRowSchema);
export const sitePageSchema = pageOf(siteRowSchema);
export const campaignPageSchema = pageOf(campaignRowSchema);

/** One account as the admin opens it: an advertiser with its balance, ledger and campaigns; a publisher with its sites and zones. */
export const adminAccountSchema = z.object({
  id: z.number().int(),
  email: z.string(),
  role: z.enum(['advertiser', 'publisher', 'admin']),
  created_at: z.string(),
  /** Advertisers only (null for the others). */
  balance_cents: z.number().int().nullable(),
  /** Newest first; advertisers only. */
  ledger: z.array(ledgerEntrySchema),
  campaigns: z.array(campaignRowSchema.omit({ advertiser_email: true })),
  sites: z.array(siteRowSchema.omit({ publisher_email: true })),
  zones: z.array(
    z.object({
      id: z.number().int(),
      name: z.string(),
      subid: z.string(),
      format: z.string(),
      site_id: z.number().int(),
    }),
  ),
});
export type AdminAccount = z.infer<typeof adminAccountSchema>;

/** One campaign as the admin opens it: who runs it and its creatives with their moderation state. */
export const adminCampaignSchema = campaignRowSchema.extend({
  daily_budget_cents: z.number().int(),
  created_at: z.string(),
  creatives: z.array(
    z.object({
      id: z.number().int(),
      title: z.string().nullable(),
      status: z.enum(CREATIVE_STATUSES),
      landing_url: z.string(),
    }),
  ),
});
export type AdminCampaign = z.infer<typeof adminCampaignSchema>;

/** A creative in the moderation queue with what a moderator decides on: whose it is, what it sells, where it leads. */
export const moderationItemSchema = creativeSchema.extend({
  advertiser_email: z.string(),
  campaign_name: z.string(),
  vertical: z.enum(VERTICALS).nullable(),
  landing_domain: z.string(),
});
export type ModerationItem = z.infer<typeof moderationItemSchema>;

const idList = z
  .array(z.coerce.number({ error: 'must be ids' }).int('must be ids').positive('must be ids'), {
    error: 'must be a list of ids',
  })
  .max(500, 'must be at most 500 ids')
  .default([]);
/** Names for the ids a statistics breakdown shows (the admin's): campaigns, sites, zones. */
export const adminNamesInputSchema = z.object({ campaigns: idList, sites: idList, zones: idList });
export const adminNamesSchema = z.object({
  campaigns: z.array(
    z.object({ id: z.number().int(), name: z.string(), advertiser_id: z.number().int(), advertiser_email: z.string() }),
  ),
  sites: z.array(
    z.object({ id: z.number().int(), domain: z.string(), publisher_id: z.number().int(), publisher_email: z.string() }),
  ),
  zones: z.array(z.object({ id: z.number().int(), name: z.string(), subid: z.string(), site_id: z.number().int() })),
});
export type AdminNames = z.infer<typeof adminNamesSchema>;
