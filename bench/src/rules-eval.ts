// `tsx bench/src/rules-eval.ts`: the automated rules' decision alone (admin/src/rules/evaluate-rule.ts), over
// synthetic statistics: 10 000 campaigns with 10 rules each, every rule over its campaign's targets. What a
// pass costs beyond this is its ClickHouse queries and the writes of the few actions it takes.
import { evaluateRule } from '@adnet/admin/evaluate-rule';
import type { EvaluatedRule } from '@adnet/admin/evaluate-rule';
import type { RuleAction, RuleMetric, RuleOp } from '@adnet/schemas/rules';
import { RULE_METRICS, RULE_OPS } from '@adnet/schemas/rules';

const CAMPAIGNS = 10_000;
const RULES = 10;
const TARGETS = Number(process.env.TARGETS ?? 50);
const USD = 1_000_000_000;

// A fixed generator, so every run sees the same world.
let seed = 42;
const rand = () => (seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648) / 2_147_483_648;
const pick = <T>(list: readonly T[]): T => list[Math.floor(rand() * list.length)] as T;
const ACTIONS: readonly RuleAction[] = ['exclude', 'raise_bid', 'lower_bid', 'notify'];
const THRESHOLD: Record<RuleMetric, () => number> = {
  spend_usd: () => rand() * 20,
  impressions: () => rand() * 20_000,
  clicks: () => rand() * 200,
  conversions: () => Math.floor(rand() * 5),
  ctr: () => rand() * 3,
  cr: () => rand() * 10,
  ecpa_usd: () => rand() * 30,
  roi: () => rand() * 2 - 1,
};

const campaigns = Array.from({ length: CAMPAIGNS }, () => ({
  rules: Array.from({ length: RULES }, (): EvaluatedRule => {
    const action = pick(ACTIONS);
    return {
      conditions: Array.from({ length: 1 + Math.floor(rand() * 3) }, () => {
        const metric = pick(RULE_METRICS);
        return { metric, op: pick<RuleOp>(RULE_OPS), value: THRESHOLD[metric]() };
      }),
      action,
      amount_pct: action === 'raise_bid' || action === 'lower_bid' ? 20 : null,
    };
  }),
  targets: Array.from({ length: TARGETS }, (_, i) => {
    const impressions = Math.floor(rand() * 20_000);
    const clicks = Math.floor(impressions * rand() * 0.03);
    const conversions = Math.floor(clicks * rand() * 0.1);
    return {
      target: String(i + 1),
      impressions,
      clicks,
      conversions,
      spentNano: Math.floor(impressions * rand() * 0.002 * USD),
      revenueCents: conversions * Math.floor(rand() * 1_000),
    };
  }),
  acted: new Set(['1', '2']),
}));

function pass(): number {
  let hits = 0;
  for (const c of campaigns) for (const r of c.rules) hits += evaluateRule(r, c.targets, c.acted).hits.length;
  return hits;
}

pass(); // warm-up: the JIT's first sight of the code is not what a running admin sees
const runs: number[] = [];
let hits = 0;
for (let i = 0; i < 5; i++) {
  const t0 = performance.now();
  hits = pass();
  runs.push(performance.now() - t0);
}
runs.sort((a, b) => a - b);
const median = runs[2] as number;
const rules = CAMPAIGNS * RULES;
console.log(
  JSON.stringify(
    {
      campaigns: CAMPAIGNS,
      rules_per_campaign: RULES,
      targets_per_rule: TARGETS,
      pass_ms_median: Math.round(median),
      pass_ms_runs: runs.map(Math.round),
      rules_per_second: Math.round(rules / (median / 1000)),
      targets_per_second: Math.round((rules * TARGETS) / (median / 1000)),
      actions_per_pass: hits,
    },
    null,
    2,
  ),
);
