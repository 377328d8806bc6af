import { z } from 'zod';
import { idSchema, oneOf, whenValid } from './api.ts';

// Automated rules (docs/rules.md): IF every condition holds for a target (a zone, site, creative, ...) over a
// window of the campaign's statistics THEN act on it, at most once per target and window.

export const RULE_SCOPES = ['zone', 'site', 'source', 'creative', 'country', 'os', 'browser'] as const;
export const RULE_WINDOWS = ['today', 'yesterday', 'last_2_days', 'last_7_days'] as const;
export const RULE_METRICS = [
  'spend_usd',
  'impressions',
  'clicks',
  'conversions',
  'ctr',
  'cr',
  'ecpa_usd',
  'roi',
] as const;
export const RULE_OPS = ['>', '>=', '<', '<='] as const;
export const RULE_ACTIONS = [
  'exclude',
  'raise_bid',
  'lower_bid',
  'pause_creative',
  'pause_campaign',
  'notify',
] as const;
export type RuleScope = (typeof RULE_SCOPES)[number];
export type RuleWindow = (typeof RULE_WINDOWS)[number];
export type RuleMetric = (typeof RULE_METRICS)[number];
export type RuleOp = (typeof RULE_OPS)[number];
export type RuleAction = (typeof RULE_ACTIONS)[number];

export const MAX_RULES_PER_CAMPAIGN = 10;
export const MAX_RULE_CONDITIONS = 3;
export const AMOUNT_PCT_MIN = 1;
export const AMOUNT_PCT_MAX = 100;

/**
 * The scopes each action can act on. `exclude` needs something the campaign can leave out: a zone or site
 * (its source list) or a country, OS or browser (its targeting); a `source` is a placement by name, often an
 * exchange's app our lists cannot name. Bid changes become bid adjustments, which exist per zone, site and
 * country only. `pause_creative` pauses the creative the row is about.
 */
export const ACTION_SCOPES: Readonly<Record<RuleAction, readonly RuleScope[]>> = {
  exclude: ['zone', 'site', 'country', 'os', 'browser'],
  raise_bid: ['zone', 'site', 'country'],
  lower_bid: ['zone', 'site', 'country'],
  pause_creative: ['creative'],
  pause_campaign: RULE_SCOPES,
  notify: RULE_SCOPES,
};
const BID_ACTIONS: ReadonlySet<RuleAction> = new Set(['raise_bid', 'lower_bid']);
export const isBidAction = (a: RuleAction): boolean => BID_ACTIONS.has(a);

export const ruleConditionSchema = z.strictObject({
  metric: oneOf(RULE_METRICS),
  op: oneOf(RULE_OPS),
  value: z
    .number({ error: (i) => (i.input === undefined ? 'is required' : 'must be a number') })
    .finite('must be a finite number')
    .min(-1_000_000_000, 'must be at least -1000000000')
    .max(1_000_000_000, 'must be at most 1000000000'),
});
export type RuleCondition = z.infer<typeof ruleConditionSchema>;

const conditions = z
  .array(ruleConditionSchema, { error: (i) => (i.input === undefined ? 'is required' : 'must be a list') })
  .min(1, 'must have at least 1 condition')
  .max(MAX_RULE_CONDITIONS, `must have at most ${MAX_RULE_CONDITIONS} conditions`);
const amountPct = z
  .number({ error: 'must be a whole number' })
  .int('must be a whole number')
  .min(AMOUNT_PCT_MIN, `must be between ${AMOUNT_PCT_MIN} and ${AMOUNT_PCT_MAX}`)
  .max(AMOUNT_PCT_MAX, `must be between ${AMOUNT_PCT_MIN} and ${AMOUNT_PCT_MAX}`);
const name = z
  .string({ error: (i) => (i.input === undefined ? 'is required' : 'must be text') })
  .trim()
  .min(1, 'must not be empty')
  .max(120, 'must be at most 120 characters');

/** The fields of a rule as a client sends them, before the checks across fields. */
const ruleFields = {
  name,
  scope: oneOf(RULE_SCOPES),
  window: oneOf(RULE_WINDOWS),
  conditions,
  action: oneOf(RULE_ACTIONS),
  amount_pct: amountPct.nullable().optional(),
  enabled: z.boolean({ error: 'must be true or false' }),
};

export interface RuleShape {
  scope: RuleScope;
  action: RuleAction;
  amount_pct?: number | null | undefined;
}

/** What a rule's fields must say together: the field each problem is about, and why (none: they fit). */
export function ruleProblems(r: RuleShape): Record<string, string> {
  const out: Record<string, string> = {};
  const allowed = ACTION_SCOPES[r.action];
  if (!allowed.includes(r.scope)) out.action = `${r.action} acts on scope ${allowed.join(', ')}, not ${r.scope}`;
  const pct = r.amount_pct ?? undefined;
  if (isBidAction(r.action) && pct === undefined)
    out.amount_pct = `is required for ${r.action} (${AMOUNT_PCT_MIN}-${AMOUNT_PCT_MAX})`;
  if (!isBidAction(r.action) && pct !== undefined) out.amount_pct = 'is only for raise_bid and lower_bid';
  return out;
}

const crossChecked = <T extends RuleShape>(o: z.ZodType<T>) =>
  o.superRefine(
    (r, ctx) => {
      for (const [field, message] of Object.entries(ruleProblems(r)))
        ctx.addIssue({ code: 'custom', path: [field], message });
    },
    { when: whenValid('scope', 'action', 'amount_pct') },
  );

/** `POST /api/adv/campaigns/{id}/rules`. */
export const ruleCreateInputSchema = crossChecked(
  z.strictObject({ id: idSchema, ...ruleFields, enabled: ruleFields.enabled.default(true) }),
);
export type RuleCreateInput = z.infer<typeof ruleCreateInputSchema>;

/** `PATCH /api/adv/campaigns/{id}/rules/{rule_id}`: any field; the rule as it would then be is checked whole. */
export const ruleUpdateInputSchema = z.strictObject({
  id: idSchema,
  rule_id: idSchema,
  name: ruleFields.name.optional(),
  scope: ruleFields.scope.optional(),
  window: ruleFields.window.optional(),
  conditions: ruleFields.conditions.optional(),
  action: ruleFields.action.optional(),
  amount_pct: ruleFields.amount_pct,
  enabled: ruleFields.enabled.optional(),
});
export type RuleUpdateInput = z.infer<typeof ruleUpdateInputSchema>;

export const ruleRefSchema = z.object({ id: idSchema, rule_id: idSchema });
export const ruleLogRefSchema = z.object({ id: idSchema, entry_id: idSchema });
export const campaignRefSchema = z.object({ id: idSchema });

export const ruleSchema = z.object({
  id: z.number().int(),
  campaign_id: z.number().int(),
  name: z.string(),
  scope: z.enum(RULE_SCOPES),
  window: z.enum(RULE_WINDOWS),
  conditions: z.array(z.object({ metric: z.enum(RULE_METRICS), op: z.enum(RULE_OPS), value: z.number() })),
  action: z.enum(RULE_ACTIONS),
  /** Bid changes only: the percentage the target's bid multiplier moves by. */
  amount_pct: z.number().int().nullable(),
  enabled: z.boolean(),
  created_at: z.string(),
  updated_at: z.string(),
});
export type Rule = z.infer<typeof ruleSchema>;

/** Each metric's value for the target when the rule fired; null where it has none (eCPA without conversions). */
export const ruleValuesSchema = z.record(z.string(), z.number().nullable());

/** One action the rule would take (preview) or took (log). */
export const ruleHitSchema = z.object({
  /** The target as the statistics name it: a zone or site id, a creative id, a country code, a placement, a family. */
  target: z.string(),
  action: z.enum(RULE_ACTIONS),
  amount_pct: z.number().int().nullable(),
  values: ruleValuesSchema,
});
export type RuleHit = z.infer<typeof ruleHitSchema>;

/** `POST .../rules/{rule_id}/preview`: what the rule would do now, and the window it reads. */
export const rulePreviewSchema = z.object({
  rule_id: z.number().int(),
  window: z.enum(RULE_WINDOWS),
  from: z.string(),
  to: z.string(),
  /** The actions a pass would take now. */
  actions: z.array(ruleHitSchema),
  /** Targets that meet the conditions but were acted on already in this window. */
  already_acted: z.array(z.string()),
});

export const RULE_OUTCOMES = ['applied', 'skipped'] as const;

export const ruleLogEntrySchema = ruleHitSchema.extend({
  id: z.number().int(),
  campaign_id: z.number().int(),
  rule_id: z.number().int(),
  rule_name: z.string(),
  scope: z.enum(RULE_SCOPES),
  window: z.enum(RULE_WINDOWS),
  /** The window's first day (UTC): a rule acts on a target once per window starting that day. */
  window_start: z.string(),
  at: z.string(),
  /** `skipped`: the conditions held but nothing could be changed (`detail` says why). */
  outcome: z.enum(RULE_OUTCOMES),
  /** What changed, in words: "multiplier 1 -> 1.2", "zone AbC123 excluded". */
  detail: z.string(),
  undone_at: z.string().nullable(),
});
export type RuleLogEntry = z.infer<typeof ruleLogEntrySchema>;
