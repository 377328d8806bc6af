import type { Rule, RuleHit, RuleWindow } from '@adnet/schemas/rules';
import { RULE_METRIC_DEFS, metricValues } from './rule-metrics.ts';
import type { TargetCounts } from './rule-metrics.ts';
import { RULE_OP_DEFS } from './rule-ops.ts';

/** What a rule reads and acts on: its conditions, action and amount (the rest is for people and storage). */
export type EvaluatedRule = Pick<Rule, 'conditions' | 'action' | 'amount_pct'>;

export interface Evaluation {
  /** The actions to take, one per target, in the order the targets came. */
  hits: RuleHit[];
  /** Targets whose conditions hold but that were acted on already in this window. */
  alreadyActed: string[];
}

/** True when every condition holds for the target; a metric without a value (eCPA without conversions) holds none. */
export function conditionsHold(rule: EvaluatedRule, counts: TargetCounts): boolean {
  for (const c of rule.conditions) {
    const v = RULE_METRIC_DEFS[c.metric].value(counts);
    if (v === null || !RULE_OP_DEFS[c.op].holds(v, c.value)) return false;
  }
  return true;
}

/**
 * The whole decision, over plain data: (rule, each target's sums for the window, the targets already acted
 * on in this window) -> actions. Pausing the campaign is one action however many targets meet the
 * conditions: the first one is named as its cause.
 */
export function evaluateRule(
  rule: EvaluatedRule,
  targets: readonly TargetCounts[],
  acted: ReadonlySet<string>,
): Evaluation {
  const hits: RuleHit[] = [];
  const alreadyActed: string[] = [];
  for (const t of targets) {
    if (!conditionsHold(rule, t)) continue;
    if (acted.has(t.target)) {
      alreadyActed.push(t.target);
      continue;
    }
    if (rule.action === 'pause_campaign' && hits.length > 0) continue;
    hits.push({ target: t.target, action: rule.action, amount_pct: rule.amount_pct, values: metricValues(t) });
  }
  return { hits, alreadyActed };
}

const DAY_MS = 86_400_000;
const DAYS_BACK: Readonly<Record<RuleWindow, { first: number; last: number }>> = {
  today: { first: 0, last: 0 },
  yesterday: { first: 1, last: 1 },
  last_2_days: { first: 1, last: 0 },
  last_7_days: { first: 6, last: 0 },
};
const utcDay = (ms: number): string => new Date(ms).toISOString().slice(0, 10);

/**
 * A window's days (UTC, inclusive) at `nowMs`. Its first day names the window: a rule acts on a target
 * once per window instance, so `today` at most once a day and `last_7_days` once per 7-day window starting each day.
 */
export function windowRange(window: RuleWindow, nowMs: number): { from: string; to: string } {
  const d = DAYS_BACK[window];
  return { from: utcDay(nowMs - d.first * DAY_MS), to: utcDay(nowMs - d.last * DAY_MS) };
}
