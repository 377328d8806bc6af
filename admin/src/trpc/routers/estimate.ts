import { CTR_PRIOR } from '@adnet/schemas/formats';
import type { CampaignFormat } from '@adnet/schemas/api';
import { ESTIMATE_WINDOW_DAYS, estimateInputSchema, estimateSchema } from '@adnet/schemas/estimate';
import type { EstimateInput } from '@adnet/schemas/estimate';
import { usdToCents, usdToMicroCents } from '@adnet/schemas/money';
import { AppError } from '../../errors.ts';
import { estimateTraffic } from '../../domain/traffic-estimate.ts';
import { zoneIdsOfSubids, zonesOfFormat } from '../../repos/estimate-inventory.ts';
import type { Services } from '../../services.ts';
import { buildEstimateQuery, daypartSlots, toMatchedTraffic } from '../../stats/estimate-query.ts';
import type { EstimateScope } from '../../stats/estimate-query.ts';
import { roleProcedure, router } from '../init.ts';

/** The formats an exchange's impression can ask for (banner, native, video: engine/src/index/slots.ts). */
const EXCHANGE_FORMATS: ReadonlySet<CampaignFormat> = new Set(['banner', 'native', 'video', 'floating_video']);

async function scopeOf(svc: Services, input: EstimateInput): Promise<EstimateScope> {
  const sources = input.sources;
  return {
    countries: input.geo_include,
    devices: input.device_types,
    oses: input.os_include,
    browsers: input.browser_include,
    formatZones: await zonesOfFormat(svc, input.format),
    exchange: EXCHANGE_FORMATS.has(input.format),
    sources: sources && {
      mode: sources.mode,
      zones: await zoneIdsOfSubids(svc, sources.zones),
      sites: sources.sites,
    },
    slots: daypartSlots(input.dayparting),
    timezone: input.timezone,
  };
}

/**
 * `POST /api/adv/estimate`: what a campaign's targeting and bid would find and win, from the last week of
 * recorded requests (docs/events-and-stats.md, "Traffic estimate"). A mutation for the POST it answers (a source
 * list of 10 000 entries is no query string), though it changes nothing.
 */
export const estimateRouter = router({
  get: roleProcedure('advertiser')
    .input(estimateInputSchema)
    .output(estimateSchema)
    .mutation(async ({ ctx, input }) => {
      const ch = ctx.svc.clickhouse;
      if (!ch) throw new AppError('unavailable', 'Statistics are not available in this process');
      const { sql, params } = buildEstimateQuery(ctx.svc.config.stats.database, await scopeOf(ctx.svc, input), {
        now: new Date(),
        days: ESTIMATE_WINDOW_DAYS,
      });
      const rows = await (
        await ch.query({ query: sql, query_params: params, format: 'JSONEachRow' })
      ).json<Record<string, string | number>>();
      return estimateTraffic(toMatchedTraffic(rows, ESTIMATE_WINDOW_DAYS), {
        bidType: input.bid_type,
        bidMicroCents: usdToMicroCents(input.bid_usd),
        dailyBudgetCents: usdToCents(input.daily_budget_usd),
        ctr: CTR_PRIOR[input.format],
      });
    }),
});
