import { RULE_METRICS } from '@adnet/schemas/rules';
import { describe, expect, it } from 'vitest';
import { RULE_METRIC_DEFS, metricValues } from './rule-metrics.ts';
import type { TargetCounts } from './rule-metrics.ts';

const USD = 1_000_000_000;
const counts = (c: Partial<TargetCounts>): TargetCounts => ({
  target: 't',
  impressions: 0,
  clicks: 0,
  conversions: 0,
  spentNano: 0,
  revenueCents: 0,
  ...c,
});

describe('rule metrics', () => {
  it('registers every metric a condition may name, each under its own name', () => {
    expect(Object.keys(RULE_METRIC_DEFS).sort()).toEqual([...RULE_METRICS].sort());
    for (const [name, def] of Object.entries(RULE_METRIC_DEFS)) expect(def.name).toBe(name);
  });

  it('computes each from the sums as the statistics do', () => {
    const c = counts({ impressions: 4000, clicks: 50, conversions: 4, spentNano: 12.5 * USD, revenueCents: 5000 });
    expect(metricValues(c)).toEqual({
      spend_usd: 12.5,
      impressions: 4000,
      clicks: 50,
      conversions: 4,
      ctr: 1.25,
      cr: 8,
      ecpa_usd: 3.125,
      // $50 back on $12.50.
      roi: 3,
    });
  });

  it('has no eCPA without conversions, and ratios of nothing are 0', () => {
    const v = metricValues(counts({ spentNano: 3 * USD }));
    expect(v.ecpa_usd).toBeNull();
    expect(v.ctr).toBe(0);
    expect(v.cr).toBe(0);
    expect(v.roi).toBe(-1);
    expect(metricValues(counts({})).roi).toBe(0);
  });
});
