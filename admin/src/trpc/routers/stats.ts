import { statsQuerySchema, statsRowSchema } from '@adnet/schemas/stats';
import type { StatsQuery } from '@adnet/schemas/stats';
import { z } from 'zod';
import { AppError } from '../../errors.ts';
import { rebuildDailySpend } from '../../stats/spend-rebuild.ts';
import { buildStatsQuery, statsCsv, toStatsRows } from '../../stats/stats-query.ts';
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
