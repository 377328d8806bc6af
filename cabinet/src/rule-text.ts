// Automated rules in words for the campaign page (docs/rules.md): "IF spend > $5 and conversions < 1 over
// today THEN exclude the zone". Zod-free: the cabinet bundles it.
import type { RuleAction, RuleCondition, RuleMetric, RuleScope, RuleWindow } from '@adnet/schemas/rules';

const METRIC_TEXT: Record<RuleMetric, string> = {
  spend_usd: 'spend ($)',
  impressions: 'impressions',
  clicks: 'clicks',
  conversions: 'conversions',
  ctr: 'CTR (%)',
  cr: 'conversion rate (%)',
  ecpa_usd: 'eCPA ($)',
  roi: 'ROI',
};
const WINDOW_TEXT: Record<RuleWindow, string> = {
  today: 'today',
  yesterday: 'yesterday',
  last_2_days: 'the last 2 days',
  last_7_days: 'the last 7 days',
};

export const metricText = (m: RuleMetric): string => METRIC_TEXT[m];

/** The conditions joined by "and", each as metric, comparison and threshold. */
export const conditionsText = (conditions: readonly RuleCondition[]): string =>
  conditions.map((c) => `${METRIC_TEXT[c.metric]} ${c.op} ${c.value}`).join(' and ');

/** What the rule does, to what. */
export function actionText(action: RuleAction, scope: RuleScope, amountPct: number | null): string {
  switch (action) {
    case 'exclude':
      return `exclude the ${scope}`;
    case 'raise_bid':
      return `raise the ${scope}'s bid ${amountPct ?? 0} %`;
    case 'lower_bid':
      return `lower the ${scope}'s bid ${amountPct ?? 0} %`;
    case 'pause_creative':
      return 'pause the creative';
    case 'pause_campaign':
      return 'pause the campaign';
    case 'notify':
      return 'email me';
  }
}

/** The whole rule in one line. */
export const ruleText = (r: {
  scope: RuleScope;
  window: RuleWindow;
  conditions: readonly RuleCondition[];
  action: RuleAction;
  amount_pct: number | null;
}): string =>
  `If a ${r.scope}'s ${conditionsText(r.conditions)} over ${WINDOW_TEXT[r.window]}, ${actionText(r.action, r.scope, r.amount_pct)}`;

/** A metric value as the log shows it: none for a metric without one (eCPA without conversions). */
export const valueText = (v: number | null | undefined): string => (v === null || v === undefined ? '–' : String(v));
