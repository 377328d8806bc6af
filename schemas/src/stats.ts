import { z } from 'zod';

export const STATS_DIMENSIONS = ['day', 'hour', 'campaign', 'creative', 'geo', 'device', 'site', 'zone'] as const;
export type StatsDimension = (typeof STATS_DIMENSIONS)[number];
const dimensionSet: ReadonlySet<string> = new Set(STATS_DIMENSIONS);
export const MAX_STATS_RANGE_DAYS = 366;

const date = z
  .string({ error: (i) => (i.input === undefined ? 'is required' : 'must be a date YYYY-MM-DD') })
  .regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a date YYYY-MM-DD')
  .refine((d) => !Number.isNaN(Date.parse(`${d}T00:00:00Z`)) && new Date(`${d}T00:00:00Z`).toISOString().startsWith(d), 'must be a real calendar date');

function isTimeZone(tz: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

/** `GET /api/adv/stats` query. Dates are inclusive, in `tz` (default UTC). */
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
          ctx.addIssue({ code: 'custom', message: `unknown dimension ${unknown.join(', ')}; use ${STATS_DIMENSIONS.join(', ')}` });
          return z.NEVER;
        }
        return [...new Set(dims)] as StatsDimension[];
      }),
    tz: z.string().max(64).refine(isTimeZone, 'must be an IANA time zone, e.g. Europe/Berlin').default('UTC'),
    format: z.enum(['json', 'csv'], { error: 'must be json or csv' }).default('json'),
    campaign_id: z.coerce.number().int().positive().optional(),
  })
  .superRefine((q, ctx) => {
    if (q.from > q.to) ctx.addIssue({ code: 'custom', path: ['from'], message: 'must not be after to' });
    const days = (Date.parse(`${q.to}T00:00:00Z`) - Date.parse(`${q.from}T00:00:00Z`)) / 86_400_000 + 1;
    if (days > MAX_STATS_RANGE_DAYS) ctx.addIssue({ code: 'custom', path: ['to'], message: `range must be at most ${MAX_STATS_RANGE_DAYS} days` });
  });
export type StatsQuery = z.infer<typeof statsQuerySchema>;

export const statsRowSchema = z.object({
  date: z.string().optional(),
  hour: z.string().optional(),
  campaign_id: z.number().int().optional(),
  creative_id: z.number().int().optional(),
  geo: z.string().optional(),
  device: z.string().optional(),
  site_id: z.number().int().optional(),
  zone_id: z.number().int().optional(),
  impressions: z.number().int(),
  clicks: z.number().int(),
  invalid_clicks: z.number().int(),
  ctr: z.number(),
  spent_cents: z.number().int(),
  conversions: z.number().int(),
  ecpa_cents: z.number().int(),
});
export type StatsRow = z.infer<typeof statsRowSchema>;
