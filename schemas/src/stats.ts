import { z } from 'zod';
import { whenValid } from './api.ts';

/** Every dimension (admins); advertisers and publishers each see a part (ADVERTISER_ and PUBLISHER_STATS_DIMENSIONS). */
export const STATS_DIMENSIONS = [
  'day',
  'hour',
  'campaign',
  'creative',
  'geo',
  'device',
  'os',
  'browser',
  'site',
  'zone',
  'source',
  'demand',
  'integration',
  'format',
] as const;
export type StatsDimension = (typeof STATS_DIMENSIONS)[number];
const dimensionSet: ReadonlySet<string> = new Set(STATS_DIMENSIONS);
export const MAX_STATS_RANGE_DAYS = 366;

/** A day as YYYY-MM-DD that exists: ClickHouse reads 2026-02-30 as March 2nd rather than refusing it. */
export const calendarDateSchema = z
  .string({ error: (i) => (i.input === undefined ? 'is required' : 'must be a date YYYY-MM-DD') })
  .regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a date YYYY-MM-DD')
  .refine(
    (d) => !Number.isNaN(Date.parse(`${d}T00:00:00Z`)) && new Date(`${d}T00:00:00Z`).toISOString().startsWith(d),
    'must be a real calendar date',
  );
const date = calendarDateSchema;

/** `POST /api/admin/spend/rebuild`: the budget day whose spend is put back from the event store. */
export const spendRebuildInputSchema = z.object({ day: calendarDateSchema });

function isTimeZone(tz: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

/** The statistics query (admins: `GET /api/admin/stats`). Dates are inclusive, in `tz` (default UTC). */
export const statsQuerySchema = z
  .object({
    from: date,
    to: date,
    group_by: z
      .string()
      .optional()
      .transform((s, ctx) => {
        if (s === undefined || s.trim() === '') return ['day'] as StatsDimension[];
        const dims = s.split(',').map((d) => d.trim());
        const unknown = dims.filter((d) => !dimensionSet.has(d));
        if (unknown.length) {
          ctx.addIssue({
            code: 'custom',
            message: `unknown dimension ${unknown.join(', ')}; use ${STATS_DIMENSIONS.join(', ')}`,
          });
          return z.NEVER;
        }
        return [...new Set(dims)] as StatsDimension[];
      }),
    tz: z.string().max(64).refine(isTimeZone, 'must be an IANA time zone, e.g. Europe/Berlin').default('UTC'),
    format: z.enum(['json', 'csv'], { error: 'must be json or csv' }).default('json'),
    campaign_id: z.coerce.number().int().positive().optional(),
  })
  .superRefine(
    (q, ctx) => {
      if (q.from > q.to) ctx.addIssue({ code: 'custom', path: ['from'], message: 'must not be after to' });
      const days = (Date.parse(`${q.to}T00:00:00Z`) - Date.parse(`${q.from}T00:00:00Z`)) / 86_400_000 + 1;
      if (days > MAX_STATS_RANGE_DAYS)
        ctx.addIssue({ code: 'custom', path: ['to'], message: `range must be at most ${MAX_STATS_RANGE_DAYS} days` });
    },
    { when: whenValid('from', 'to') },
  );
export type StatsQuery = z.infer<typeof statsQuerySchema>;

/** Publishers' statistics see no campaign or creative; `demand` says who bought (our campaigns or a demand partner). */
export const PUBLISHER_STATS_DIMENSIONS: readonly StatsDimension[] = [
  'day',
  'hour',
  'geo',
  'device',
  'os',
  'browser',
  'site',
  'zone',
  'demand',
  'integration',
  'format',
];
/** Advertisers' statistics are their own campaigns': no `demand` (what demand partners bought is not theirs). */
export const ADVERTISER_STATS_DIMENSIONS: readonly StatsDimension[] = STATS_DIMENSIONS.filter((d) => d !== 'demand');

/** A statistics query that may group only by `dims` (what `who` may see), said in the one 400 with the other fields. */
const groupedOnlyBy = (dims: readonly StatsDimension[], who: string) =>
  statsQuerySchema.superRefine(
    (q, ctx) => {
      if (q.group_by.some((d) => !dims.includes(d)))
        ctx.addIssue({ code: 'custom', path: ['group_by'], message: `${who} group by ${dims.join(', ')}` });
    },
    { when: whenValid('group_by') },
  );

/** `GET /api/adv/stats` query: grouped only by what advertisers may see. */
export const advStatsQuerySchema = groupedOnlyBy(ADVERTISER_STATS_DIMENSIONS, 'advertisers');
/** `GET /api/pub/stats` query: grouped only by what publishers may see. */
export const pubStatsQuerySchema = groupedOnlyBy(PUBLISHER_STATS_DIMENSIONS, 'publishers');
/** `GET /api/pub/stats/uncounted` query: its table has no geo or device. */
export const uncountedQuerySchema = groupedOnlyBy(['day', 'hour', 'site', 'zone'], 'uncounted traffic reports');

export const statsRowSchema = z.object({
  date: z.string().optional(),
  hour: z.string().optional(),
  campaign_id: z.number().int().optional(),
  creative_id: z.number().int().optional(),
  geo: z.string().optional(),
  device: z.string().optional(),
  /** OS family (`android`, `ios`, ... `other`; empty when unknown). */
  os: z.string().optional(),
  /** Browser family (`chrome`, `safari`, ... `other`; empty when unknown). */
  browser: z.string().optional(),
  site_id: z.number().int().optional(),
  zone_id: z.number().int().optional(),
  /** With `zone` in `group_by` (advertisers, admins): the zone's subid, as campaigns' source lists name zones; '' for none. */
  zone_subid: z.string().optional(),
  /**
   * The placement by name: our publisher's registrable domain, or the exchange's `site.domain` or `app.bundle`;
   * `other` for junk and for names past the hourly cap, '' when unknown or before it was recorded (docs/events-and-stats.md).
   */
  source: z.string().optional(),
  /**
   * Who bought the impressions (`group_by=demand`, publishers and admins): `own` for our campaigns (and a
   * publisher's fallbacks), else the demand partner's id (docs/demand.md).
   */
  demand: z.string().optional(),
  /**
   * How the traffic reached us (`group_by=integration`): `widget`, `vast`, `openrtb`, `prebid` or `push`
   * (schemas/src/events.ts `INTEGRATIONS`); '' for hours recorded before it was (docs/events-and-stats.md).
   */
  integration: z.string().optional(),
  /**
   * The format of the ad as served (`group_by=format`): a zone's format on our zones (an opted-in banner's
   * creative in an interstitial zone is `interstitial`; a demand partner's ad there too), the campaign's on an
   * exchange's impression; '' for hours recorded before it was (docs/events-and-stats.md, formats).
   */
  format: z.string().optional(),
  /** With `demand`: the partner's name ('' for `own`, or a partner since deleted). */
  demand_name: z.string().optional(),
  // Admins, grouped by `demand` (and at most `day`) in UTC: a partner's auction counters, summed over engines
  // (docs/demand.md#money-and-statistics). Absent elsewhere and on `own` rows.
  /** Bid requests sent to the partner. */
  bid_requests: z.number().int().optional(),
  /** Valid bids it answered with. */
  bids: z.number().int().optional(),
  /** Auctions it won (served; `impressions` are those counted by our tracker). */
  wins: z.number().int().optional(),
  /** Requests it did not answer in time. */
  timeouts: z.number().int().optional(),
  /** Failed requests: connection errors, refused addresses, statuses other than 200 and 204. */
  errors: z.number().int().optional(),
  impressions: z.number().int(),
  /** Impressions at least half in view for a second (two for video), the MRC rule; a subset of impressions. */
  viewable_impressions: z.number().int(),
  clicks: z.number().int(),
  invalid_clicks: z.number().int(),
  ctr: z.number(),
  /** Spend rounded down to the cent; `spent_nano` holds the exact amount. */
  spent_cents: z.number().int(),
  /**
   * The exact spend in nano-dollars (1e-9 USD; 10,000,000 make a cent), as stored: a few impressions at a low CPM
   * spend less than a cent, which `spent_cents` shows as 0 (docs/events-and-stats.md).
   */
  spent_nano: z.number().int(),
  conversions: z.number().int(),
  ecpa_cents: z.number().int(),
  /** Advertisers and admins: the approved conversions' payouts, in cents (what the advertiser's tracker reported). */
  revenue_cents: z.number().int().optional(),
  /** Advertisers and admins: (revenue - spend) / spend, to four places (0.25 is +25 %); 0 when nothing was spent. */
  roi: z.number().optional(),
});
export type StatsRow = z.infer<typeof statsRowSchema>;

/**
 * The row column each dimension fills: one map for the query that writes the rows (admin/src/stats) and the
 * cabinet that reads them, so a dimension's column cannot differ between the two.
 */
export const STATS_DIMENSION_COLUMNS = {
  day: 'date',
  hour: 'hour',
  campaign: 'campaign_id',
  creative: 'creative_id',
  geo: 'geo',
  device: 'device',
  os: 'os',
  browser: 'browser',
  site: 'site_id',
  zone: 'zone_id',
  source: 'source',
  demand: 'demand',
  integration: 'integration',
  format: 'format',
} as const satisfies Record<StatsDimension, keyof StatsRow>;

/** Why traffic on a publisher's zones was not counted: `uncounted_hourly` (admin/src/clickhouse/migrations.ts). */
export const UNCOUNTED_KINDS = ['request', 'impression', 'click'] as const;

/** `GET /api/pub/stats/uncounted`: per group, what was not counted, of which kind and why. */
export const uncountedRowSchema = statsRowSchema.pick({ date: true, hour: true, site_id: true, zone_id: true }).extend({
  /** An ad request refused (`request`), a beacon or pixel not counted (`impression`), or an invalid click. */
  of: z.enum(UNCOUNTED_KINDS),
  /** A no-bid reason of invalid traffic, `expired` or `mismatch`, or the click rule that failed. */
  reason: z.string(),
  events: z.number().int(),
});
export type UncountedRow = z.infer<typeof uncountedRowSchema>;
