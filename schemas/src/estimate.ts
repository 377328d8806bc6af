import { z } from 'zod';
import { campaignCreateFields } from './api.ts';

// The traffic estimate and bid guidance (`POST /api/adv/estimate`; docs/events-and-stats.md, "Traffic
// estimate"): a campaign's targeting and bid, checked by the very field schemas a new campaign is, so a form that
// estimates as it is typed meets the same 400s the create would.

/** The days of recorded traffic the estimate reads. */
export const ESTIMATE_WINDOW_DAYS = 7;

export const estimateInputSchema = campaignCreateFields.pick({
  format: true,
  geo_include: true,
  languages: true,
  device_types: true,
  os_include: true,
  browser_include: true,
  connection_types: true,
  sources: true,
  dayparting: true,
  timezone: true,
  frequency_cap: true,
  bid_type: true,
  bid_usd: true,
  daily_budget_usd: true,
});
export type EstimateInput = z.infer<typeof estimateInputSchema>;

const usd = z.number().nonnegative();

export const estimateSchema = z.object({
  window_days: z.number().int().positive(),
  /** Matching requests a day over the window (the campaign's schedule applied). */
  requests_per_day: usd,
  /** What the bid wins a day, within the daily budget. */
  impressions_per_day: usd,
  /** The share of matching requests the bid wins, 0 to 1 (before the budget). */
  win_rate: z.number().min(0).max(1),
  spend_per_day_usd: usd,
  /** Winning prices of the matching traffic, CPM in USD; null where none was sold in the window. */
  cpm_percentiles_usd: z.object({ p25: usd.nullable(), p50: usd.nullable(), p75: usd.nullable(), p90: usd.nullable() }),
  /** In the bid type's unit (CPM or CPC): the lowest bid that beats 5 % of the winning prices. */
  min_bid_usd: usd,
  /** In the bid type's unit: the bid that beats 75 % of the winning prices (their p75). */
  recommended_bid_usd: usd,
});
export type Estimate = z.infer<typeof estimateSchema>;
