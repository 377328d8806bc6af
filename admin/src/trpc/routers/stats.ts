import { fillRate } from '../../stats/fill-rate.ts';
import {
  advStatsQuerySchema,
  pubStatsQuerySchema,
  spendRebuildInputSchema,
  statsQuerySchema,
  statsRowSchema,
  uncountedQuerySchema,
  uncountedRowSchema,
} from '@adnet/schemas/stats';
import type { StatsRow } from '@adnet/schemas/stats';
import type { DemandPartner } from '@adnet/schemas/demand';
import type { StatsQuery } from '@adnet/schemas/stats';
import { z } from 'zod';
import { AppError } from '../../errors.ts';
import { loadOwnedCampaign } from '../../repos/campaigns.ts';
import { rebuildDailySpend } from '../../stats/spend-rebuild.ts';
import {
  buildStatsQuery,
  buildUncountedQuery,
  demandPartnerIds,
  publisherEarningsCents,
  statsCsv,
  toStatsRows,
  toUncountedRows,
  withDemandNames,
  withZoneSubids,
} from '../../stats/stats-query.ts';
import type { StoredZone } from '@adnet/schemas/publisher';
import type { StatsScope } from '../../stats/stats-query.ts';
import { takesAuctionCounters, withAuctionCounters } from '../../stats/demand-counters.ts';
import { DEMAND_PARTNERS } from './demand-partners.ts';
import type { Context } from '../init.ts';
import { authedProcedure, roleProcedure, router } from '../init.ts';
import { statsFreshnessSchema } from '@adnet/schemas/readiness';

const statsOutput = z.object({ rows: z.array(statsRowSchema), csv: z.string().optional() });

async function select(ctx: Context, { sql, params }: { sql: string; params: Record<string, unknown> }) {
  const ch = ctx.svc.clickhouse;
  if (!ch) throw new AppError('unavailable', 'Statistics are not available in this process');
  return (await ch.query({ query: sql, query_params: params, format: 'JSONEachRow' })).json<
    Record<string, string | number>
  >();
}

async function runStats(ctx: Context, q: StatsQuery, scope: StatsScope) {
  const raw = await select(ctx, buildStatsQuery(ctx.svc.config.stats.database, q, scope));
  let rows = toStatsRows(raw, q);
  // Every partner's auction counters, for admins looking at all of the traffic (an advertiser's has no partner rows).
  if (scope.advertiserId === undefined && scope.publisherId === undefined && takesAuctionCounters(q)) {
    const ids = (await ctx.svc.configStore.indexed(DEMAND_PARTNERS))
      .map(Number)
      .filter((id) => Number.isInteger(id) && id > 0);
    rows = withAuctionCounters(rows, q, await ctx.svc.demandHealth.daily(ids, q));
  }
  if (q.group_by.includes('zone')) {
    // The placement report names zones as source lists do: by subid, read for the zones the rows name.
    const ids = [...new Set(rows.map((r) => r.zone_id ?? 0).filter((id) => id > 0))].map(String);
    const zones = ids.length ? await ctx.svc.configStore.readMany<StoredZone>('zone', ids) : [];
    rows = withZoneSubids(rows, new Map(zones.map((z) => [z.id, z.subid])));
  }
  rows = await namedDemand(ctx, q, rows);
  return q.format === 'csv' ? { rows, csv: statsCsv(rows, q) } : { rows };
}

/** With `demand` grouped: each partner row's partner name, read for the partners the rows name. */
async function namedDemand(ctx: Context, q: StatsQuery, rows: StatsRow[]): Promise<StatsRow[]> {
  if (!q.group_by.includes('demand')) return rows;
  const ids = demandPartnerIds(rows).map(String);
  const partners = ids.length ? await ctx.svc.configStore.readMany<DemandPartner>('demand_partner', ids) : [];
  return withDemandNames(rows, new Map(partners.map((p) => [p.id, p.name])));
}

const pubStatsRow = statsRowSchema
  .omit({
    spent_cents: true,
    spent_nano: true,
    conversions: true,
    ecpa_cents: true,
    revenue_cents: true,
    roi: true,
    campaign_id: true,
    creative_id: true,
    bid_requests: true,
    bids: true,
    wins: true,
    timeouts: true,
    errors: true,
  })
  .extend({
    earnings_cents: z.number().int(),
    /** Unfilled requests answered with the publisher's own fallback (schemas/src/publisher-controls.ts). */
    fallbacks: z.number().int(),
    /** Valid ad requests nothing filled, fallbacks included (migration step 7). */
    unfilled: z.number().int(),
    /** impressions / (impressions + unfilled), to four places; null without either (stats/fill-rate.ts). */
    fill_rate: z.number().nullable(),
  });

/** Publishers: impressions, clicks and earnings on their own sites and zones. */
export const pubStatsRouter = router({
  get: roleProcedure('publisher')
    .input(pubStatsQuerySchema)
    .output(z.object({ rows: z.array(pubStatsRow) }))
    .query(async ({ ctx, input }) => {
      const raw = await select(
        ctx,
        buildStatsQuery(ctx.svc.config.stats.database, input, { publisherId: ctx.session.userId }),
      );
      const share = ctx.svc.config.billing.publisherRevenueSharePercent;
      const named = await namedDemand(ctx, input, toStatsRows(raw, input));
      return {
        rows: named.map((row, i) => {
          const { spent_cents: _s, spent_nano: _n, conversions: _c, ecpa_cents: _e, ...rest } = row;
          const unfilled = Number(raw[i]?.unfilled ?? 0);
          return {
            ...rest,
            earnings_cents: publisherEarningsCents(raw[i]?.spent_nano ?? 0, share),
            fallbacks: Number(raw[i]?.fallbacks ?? 0),
            unfilled,
            fill_rate: fillRate(rest.impressions, unfilled),
          };
        }),
      };
    }),

  /** What was not counted on the publisher's zones, and why: the invalid traffic they are not paid for. */
  uncounted: roleProcedure('publisher')
    .input(uncountedQuerySchema)
    .output(z.object({ rows: z.array(uncountedRowSchema) }))
    .query(async ({ ctx, input }) => {
      const raw = await select(ctx, buildUncountedQuery(ctx.svc.config.stats.database, input, ctx.session.userId));
      return { rows: toUncountedRows(raw, input) };
    }),
});

export const advStatsRouter = router({
  get: roleProcedure('advertiser')
    .input(advStatsQuerySchema)
    .output(statsOutput)
    .query(async ({ ctx, input }) => {
      // Another advertiser's campaign is refused (403), as every resource of another holder is, rather than read as empty.
      if (input.campaign_id !== undefined) await loadOwnedCampaign(ctx.svc, ctx.session.userId, input.campaign_id);
      return runStats(ctx, input, { advertiserId: ctx.session.userId });
    }),
});

export const adminStatsRouter = router({
  rebuildSpend: roleProcedure('admin')
    .input(spendRebuildInputSchema)
    .output(z.object({ day: z.string(), campaigns: z.number().int(), spent_cents: z.number().int() }))
    .mutation(({ ctx, input }) => rebuildDailySpend(ctx.svc, input.day)),

  stats: roleProcedure('admin')
    .input(statsQuerySchema.and(z.object({ advertiser_id: z.coerce.number().int().positive().optional() })))
    .output(statsOutput)
    .query(({ ctx, input }) => runStats(ctx, input, input.advertiser_id ? { advertiserId: input.advertiser_id } : {})),
});

/**
 * Any signed-in account: how far the statistics lag the event stream, so a person looking at numbers that
 * have not moved knows why. Read from the background probe, never waiting on Redis (observability/health.ts).
 */
export const statsFreshnessRouter = router({
  freshness: authedProcedure.output(statsFreshnessSchema).query(({ ctx }) => ctx.svc.health.freshness()),
});
