import { describe, expect, it } from 'vitest';
import { conditionsHold, evaluateRule, windowRange } from './evaluate-rule.ts';
import type { EvaluatedRule } from './evaluate-rule.ts';
import type { TargetCounts } from './rule-metrics.ts';

const USD = 1_000_000_000;
const zone = (target: string, c: Partial<TargetCounts>): TargetCounts => ({
  target,
  impressions: 1000,
  clicks: 10,
  conversions: 0,
  spentNano: 0,
  revenueCents: 0,
  ...c,
});
// "Spent more than $5 and no conversion: exclude."
const burner: EvaluatedRule = {
  conditions: [
    { metric: 'spend_usd', op: '>', value: 5 },
    { metric: 'conversions', op: '<', value: 1 },
  ],
  action: 'exclude',
  amount_pct: null,
};
const targets = [
  zone('1', { spentNano: 6 * USD }),
  zone('2', { spentNano: 6 * USD, conversions: 1 }),
  zone('3', { spentNano: 4 * USD }),
  zone('4', { spentNano: 9 * USD }),
];

describe('evaluateRule', () => {
  it('acts on each target where every condition holds, once', () => {
    const { hits, alreadyActed } = evaluateRule(burner, targets, new Set());
    expect(hits.map((h) => h.target)).toEqual(['1', '4']);
    expect(alreadyActed).toEqual([]);
    expect(hits[0]).toMatchObject({ action: 'exclude', amount_pct: null, values: { spend_usd: 6, conversions: 0 } });
  });

  it('leaves out the targets already acted on in this window, and names them', () => {
    const { hits, alreadyActed } = evaluateRule(burner, targets, new Set(['1', '3']));
    expect(hits.map((h) => h.target)).toEqual(['4']);
    // 3 is in the set but does not meet the conditions: not named.
    expect(alreadyActed).toEqual(['1']);
  });

  it('pauses the campaign once whatever the number of targets', () => {
    const { hits } = evaluateRule({ ...burner, action: 'pause_campaign' }, targets, new Set());
    expect(hits.map((h) => [h.target, h.action])).toEqual([['1', 'pause_campaign']]);
  });

  it('carries the bid change amount', () => {
    const raise: EvaluatedRule = {
      conditions: [{ metric: 'roi', op: '>=', value: 0.5 }],
      action: 'raise_bid',
      amount_pct: 20,
    };
    const { hits } = evaluateRule(raise, [zone('9', { spentNano: 10 * USD, revenueCents: 1500 })], new Set());
    expect(hits).toEqual([expect.objectContaining({ target: '9', action: 'raise_bid', amount_pct: 20 })]);
    expect(hits[0]?.values.roi).toBe(0.5);
  });

  it('holds no condition on a metric without a value', () => {
    const costly: EvaluatedRule = { ...burner, conditions: [{ metric: 'ecpa_usd', op: '>', value: 0 }] };
    expect(conditionsHold(costly, zone('1', { spentNano: 50 * USD }))).toBe(false);
    expect(conditionsHold(costly, zone('1', { spentNano: 50 * USD, conversions: 2 }))).toBe(true);
  });
});

describe('windowRange', () => {
  const now = Date.parse('2026-11-29T07:00:00Z');
  it('names each window by its UTC days, both ends inclusive', () => {
    expect(windowRange('today', now)).toEqual({ from: '2026-11-29', to: '2026-11-29' });
    expect(windowRange('yesterday', now)).toEqual({ from: '2026-11-28', to: '2026-11-28' });
    expect(windowRange('last_2_days', now)).toEqual({ from: '2026-11-28', to: '2026-11-29' });
    expect(windowRange('last_7_days', now)).toEqual({ from: '2026-11-23', to: '2026-11-29' });
  });
});
