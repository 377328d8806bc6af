import type { RuleMetric } from '@adnet/schemas/rules';
import { NANO_USD_PER_CENT } from '@adnet/schemas/money';

/** One target's sums over a rule's window, as the hourly statistics hold them: money as integers. */
export interface TargetCounts {
  /** The target as the statistics name it (zone id, site id, creative id, country, placement, family). */
  target: string;
  impressions: number;
  clicks: number;
  conversions: number;
  spentNano: number;
  revenueCents: number;
}

/** A condition's metric: its value for a target, or null where it has none (a condition on it then does not hold). */
export interface MetricDef {
  name: RuleMetric;
  value(c: TargetCounts): number | null;
}

const NANO_PER_USD = 1_000_000_000;
const percent = (part: number, whole: number): number => (whole ? Math.round((part / whole) * 10_000) / 100 : 0);

/**
 * Every metric a condition may name, computed as the statistics compute them (stats/stats-query.ts): ctr and
 * cr in percent to two places, roi as a ratio to four. eCPA has no value without conversions: a rule on it
 * waits for one, rather than calling a zone that has spent a cent "infinitely expensive"; a rule about
 * spend without conversions says so (`spend_usd > 20` and `conversions < 1`).
 */
export const RULE_METRIC_DEFS: Readonly<Record<RuleMetric, MetricDef>> = {
  spend_usd: { name: 'spend_usd', value: (c) => c.spentNano / NANO_PER_USD },
  impressions: { name: 'impressions', value: (c) => c.impressions },
  clicks: { name: 'clicks', value: (c) => c.clicks },
  conversions: { name: 'conversions', value: (c) => c.conversions },
  ctr: { name: 'ctr', value: (c) => percent(c.clicks, c.impressions) },
  cr: { name: 'cr', value: (c) => percent(c.conversions, c.clicks) },
  ecpa_usd: {
    name: 'ecpa_usd',
    value: (c) => (c.conversions ? Math.round(c.spentNano / c.conversions / (NANO_PER_USD / 10_000)) / 10_000 : null),
  },
  roi: {
    name: 'roi',
    value: (c) =>
      c.spentNano > 0
        ? Math.round(((c.revenueCents * NANO_USD_PER_CENT - c.spentNano) / c.spentNano) * 10_000) / 10_000
        : 0,
  },
};

/** Every metric's value for the target: what the log records beside an action. */
export function metricValues(c: TargetCounts): Record<RuleMetric, number | null> {
  const out = {} as Record<RuleMetric, number | null>;
  for (const def of Object.values(RULE_METRIC_DEFS)) out[def.name] = def.value(c);
  return out;
}
