import { statsQuerySchema, statsRowSchema } from '@adnet/schemas/stats';
import type { StatsQuery } from '@adnet/schemas/stats';
import { z } from 'zod';
import { AppError, fieldErrors } from '../../errors.ts';
import { rebuildDailySpend } from '../../stats/spend-rebuild.ts';
import { buildStatsQuery, publisherEarningsCents, statsCsv, toStatsRows } from '../../stats/stats-query.ts';
import type { StatsScope } from '../../stats/stats-query.ts';
import type { Context } from '../init.ts';
import { roleProcedure, router } from '../init.ts';

const statsOutput = z.object({ rows: z.array(statsRowSchema), csv: z.string().optional() });

async function runStats(ctx: Context, q: StatsQuery, scope: StatsScope) {
  const ch = ctx.svc.clickhouse;
  if (!ch) throw new AppError('unavailable', 'Statistics are not available in this process');
  const { sql, params } = buildStatsQuery(ctx.svc.config.clickhouseDatabase, q, scope);
  const raw = await (await ch.query({ query: sql, query_params: params, format: 'JSONEachRow' })).json<Record<string, string | number>>();
  const rows = toStatsRows(raw, q);
  return q.format === 'csv' ? { rows, csv: statsCsv(rows, q) } : { rows };
}

const PUBLISHER_DIMENSIONS: ReadonlySet<string> = new Set(['day', 'hour', 'geo', 'device', 'site', 'zone']);
const pubStatsRow = statsRowSchema
  .omit({ spent_cents: true, conversions: true, ecpa_cents: true, campaign_id: true, creative_id: true })
  .extend({ earnings_cents: z.number().int() });

/** Publishers: impressions, clicks and earnings on their own sites and zones. */
export const pubStatsRouter = router({
  get: roleProcedure('publisher')
    .input(statsQuerySchema)
    .output(z.object({ rows: z.array(pubStatsRow) }))
    .query(async ({ ctx, input }) => {
      const refused = input.group_by.filter((d) => !PUBLISHER_DIMENSIONS.has(d));
      if (refused.length) throw fieldErrors({ group_by: `publishers group by ${[...PUBLISHER_DIMENSIONS].join(', ')}` });
      const ch = ctx.svc.clickhouse;
      if (!ch) throw new AppError('unavailable', 'Statistics are not available in this process');
      const { sql, params } = buildStatsQuery(ctx.svc.config.clickhouseDatabase, input, { publisherId: ctx.session.userId });
      const raw = await (await ch.query({ query: sql, query_params: params, format: 'JSONEachRow' })).json<Record<string, string | number>>();
      const share = ctx.svc.config.publisherRevenueSharePercent;
      return {
        rows: toStatsRows(raw, input).map((row, i) => {
          const { spent_cents: _s, conversions: _c, ecpa_cents: _e, ...rest } = row;
          return { ...rest, earnings_cents: publisherEarningsCents(raw[i]?.spent_nano ?? 0, share) };
        }),
      };
    }),
});

export const advStatsRouter = router({
  get: roleProcedure('advertiser')
    .input(statsQuerySchema)
    .output(statsOutput)
    .query(({ ctx, input }) => runStats(ctx, input, { advertiserId: ctx.session.userId })),
});

export const adminStatsRouter = router({
  rebuildSpend: roleProcedure('admin')
    .input(z.object({ day: z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a date YYYY-MM-DD') }))
    .output(z.object({ day: z.string(), campaigns: z.number().int(), spent_cents: z.number().int() }))
    .mutation(({ ctx, input }) => rebuildDailySpend(ctx.svc, input.day)),

  stats: roleProcedure('admin')
    .input(statsQuerySchema.and(z.object({ advertiser_id: z.coerce.number().int().positive().optional() })))
    .output(statsOutput)
    .query(({ ctx, input }) => runStats(ctx, input, input.advertiser_id ? { advertiserId: input.advertiser_id } : {})),
});
