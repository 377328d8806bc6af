import { z } from 'zod';

// Audiences (docs/audiences.md): visitors who saw, clicked or converted on an advertiser's campaigns, or
// visited its own pages through the audience pixel, for a number of days; campaigns include or exclude them.

export const AUDIENCE_SOURCES = ['pixel', 'clicked', 'converted', 'viewed'] as const;
export type AudienceSource = (typeof AUDIENCE_SOURCES)[number];
/** Longest membership: a visitor is a member for `lifetime_days` after the last event that made it one. */
export const MAX_AUDIENCE_LIFETIME_DAYS = 540;
/** Campaigns one audience may name, and audiences one campaign may include or exclude (each list). */
export const MAX_AUDIENCE_CAMPAIGNS = 50;
export const MAX_CAMPAIGN_AUDIENCES = 20;
/** Audiences one advertiser may hold. */
export const MAX_AUDIENCES = 200;

const SOURCE_MESSAGE = `must be one of: ${AUDIENCE_SOURCES.join(', ')}`;
const LIFETIME_MESSAGE = `must be a whole number of days from 1 to ${MAX_AUDIENCE_LIFETIME_DAYS}`;
const ID_MESSAGE = 'must be a list of positive whole-number ids';

const positiveId = z.number(ID_MESSAGE).int(ID_MESSAGE).positive(ID_MESSAGE).max(Number.MAX_SAFE_INTEGER, ID_MESSAGE);
/** A list of ids, duplicates dropped. */
const idList = (max: number) =>
  z
    .array(positiveId, ID_MESSAGE)
    .max(max, `must name at most ${max} ids`)
    .transform((ids) => [...new Set(ids)]);

export const audienceCreateInputSchema = z
  .object({
    name: z.string('must be a string').trim().min(1, 'must not be empty').max(120, 'must be at most 120 characters'),
    source: z.enum(AUDIENCE_SOURCES, SOURCE_MESSAGE),
    campaign_ids: idList(MAX_AUDIENCE_CAMPAIGNS).optional(),
    lifetime_days: z
      .number(LIFETIME_MESSAGE)
      .int(LIFETIME_MESSAGE)
      .min(1, LIFETIME_MESSAGE)
      .max(MAX_AUDIENCE_LIFETIME_DAYS, LIFETIME_MESSAGE),
  })
  .superRefine((a, ctx) => {
    // The campaigns say whose visitors: the pixel's are the advertiser's own pages, the others' its campaigns'.
    if (a.source === 'pixel' && a.campaign_ids?.length)
      ctx.addIssue({ code: 'custom', path: ['campaign_ids'], message: 'must be absent for source pixel' });
    if (a.source !== 'pixel' && !a.campaign_ids?.length)
      ctx.addIssue({
        code: 'custom',
        path: ['campaign_ids'],
        message: `must name at least one campaign for source ${a.source}`,
      });
  });
export type AudienceCreateInput = z.infer<typeof audienceCreateInputSchema>;

/** What is stored (config kind `audience`, mirrored by every engine). An audience never changes: it is created and deleted. */
export const storedAudienceSchema = z.object({
  id: z.number().int(),
  advertiser_id: z.number().int(),
  name: z.string(),
  source: z.enum(AUDIENCE_SOURCES),
  /** Empty for `pixel`. */
  campaign_ids: z.array(z.number().int()),
  lifetime_days: z.number().int(),
  /** The pixel's unguessable token (128 random bits); null for the other sources. */
  pixel_token: z.string().nullable(),
  created_at: z.string(),
});
export type StoredAudience = z.infer<typeof storedAudienceSchema>;

export const audienceSchema = storedAudienceSchema.omit({ pixel_token: true }).extend({
  /** The 1x1 image the advertiser places on its pages (source `pixel`), null for the other sources. */
  pixel_url: z.string().nullable(),
});
export type Audience = z.infer<typeof audienceSchema>;
export const audienceListSchema = z.object({ audiences: z.array(audienceSchema) });

/** A campaign's audience lists (each replaced whole on update): ids of the advertiser's own audiences. */
export const campaignAudienceLists = {
  audiences_include: idList(MAX_CAMPAIGN_AUDIENCES),
  audiences_exclude: idList(MAX_CAMPAIGN_AUDIENCES),
};

/** An audience pixel's path: `/px/<token>.gif`. A token is 22 base64url characters. */
export const PIXEL_TOKEN = /^[A-Za-z0-9_-]{22}$/;
export const pixelPath = (token: string): string => `/px/${token}.gif`;
/** The cookie the pixel and the widget's ad requests share: our own id of the browser, for pixel audiences. */
export const VISITOR_COOKIE = 'adnet_vid';
