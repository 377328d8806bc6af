import {
  MAX_RULES_PER_CAMPAIGN,
  campaignRefSchema,
  ruleCreateInputSchema,
  ruleLogEntrySchema,
  ruleLogRefSchema,
  rulePreviewSchema,
  ruleProblems,
  ruleRefSchema,
  ruleSchema,
  ruleUpdateInputSchema,
} from '@adnet/schemas/rules';
import type { Rule } from '@adnet/schemas/rules';
import { z } from 'zod';
import { AppError, fieldErrors, notFound } from '../../errors.ts';
import { loadOwnedCampaign } from '../../repos/campaigns.ts';
import { undoRuleAction } from '../../rules/rule-actions.ts';
import { previewRule } from '../../rules/rule-evaluator.ts';
import type { AuthedContext } from '../init.ts';
import { roleProcedure, router } from '../init.ts';

const advertiser = roleProcedure('advertiser');

/** The caller's campaign (404, or 403 for another advertiser's), not archived when it is to change. */
async function ownCampaign(ctx: AuthedContext, id: number, changing: boolean) {
  const campaign = await loadOwnedCampaign(ctx.svc, ctx.session.userId, id);
  if (changing && campaign.status === 'archived')
    throw new AppError('illegal_transition', 'An archived campaign cannot be changed');
  return campaign;
}

async function ownRule(ctx: AuthedContext, input: { id: number; rule_id: number }, changing = false) {
  const campaign = await ownCampaign(ctx, input.id, changing);
  const rule = await ctx.svc.rules.get(input.id, input.rule_id);
  if (!rule) throw notFound('Rule');
  return { campaign, rule };
}

/** A log entry as the API shows it: its undo record stays inside. */
const publicEntry = ({ undo: _undo, ...entry }: { undo: unknown } & z.infer<typeof ruleLogEntrySchema>) => entry;

/** Automated rules (docs/rules.md): a campaign's rules, what they would do now, and what they did. */
export const rulesRouter = router({
  list: advertiser
    .input(campaignRefSchema)
    .output(z.object({ rules: z.array(ruleSchema) }))
    .query(async ({ ctx, input }) => {
      await ownCampaign(ctx, input.id, false);
      return { rules: await ctx.svc.rules.list(input.id) };
    }),

  create: advertiser
    .input(ruleCreateInputSchema)
    .output(ruleSchema)
    .mutation(async ({ ctx, input }) => {
      await ownCampaign(ctx, input.id, true);
      const now = new Date().toISOString();
      const { id, ...fields } = input;
      const rule = await ctx.svc.rules.create({
        ...fields,
        campaign_id: id,
        amount_pct: fields.amount_pct ?? null,
        created_at: now,
        updated_at: now,
      });
      if (!rule)
        throw new AppError('conflict', `A campaign has at most ${MAX_RULES_PER_CAMPAIGN} rules; delete one first`);
      ctx.svc.log.info({ event: 'rule.created', campaignId: id, ruleId: rule.id }, 'rule created');
      return rule;
    }),

  get: advertiser
    .input(ruleRefSchema)
    .output(ruleSchema)
    .query(async ({ ctx, input }) => (await ownRule(ctx, input)).rule),

  update: advertiser
    .input(ruleUpdateInputSchema)
    .output(ruleSchema)
    .mutation(async ({ ctx, input }) => {
      const { rule } = await ownRule(ctx, input, true);
      const { id: _id, rule_id: _ruleId, ...patch } = input;
      const next: Rule = {
        ...rule,
        ...Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined)),
        updated_at: new Date().toISOString(),
      };
      // Changing the action to a bid change without an amount (or away from one with it) is checked on the whole rule.
      const problems = ruleProblems(next);
      if (Object.keys(problems).length) throw fieldErrors(problems);
      if (!(await ctx.svc.rules.replace(next))) throw notFound('Rule');
      return next;
    }),

  delete: advertiser
    .input(ruleRefSchema)
    .output(z.object({ ok: z.literal(true) }))
    .mutation(async ({ ctx, input }) => {
      await ownCampaign(ctx, input.id, false);
      if (!(await ctx.svc.rules.delete(input.id, input.rule_id))) throw notFound('Rule');
      return { ok: true as const };
    }),

  /** What the rule would do now, on the window's statistics and the targets it has acted on; nothing is changed. */
  preview: advertiser
    .input(ruleRefSchema)
    .output(rulePreviewSchema)
    .mutation(async ({ ctx, input }) => {
      const { campaign, rule } = await ownRule(ctx, input);
      if (!ctx.svc.clickhouse) throw new AppError('unavailable', 'Statistics are not available in this process');
      return previewRule(ctx.svc, campaign, rule);
    }),

  log: advertiser
    .input(campaignRefSchema)
    .output(z.object({ entries: z.array(ruleLogEntrySchema) }))
    .query(async ({ ctx, input }) => {
      await ownCampaign(ctx, input.id, false);
      return { entries: (await ctx.svc.rules.log(input.id)).map(publicEntry) };
    }),

  /** Reverts exactly what one logged action changed, once. */
  undo: advertiser
    .input(ruleLogRefSchema)
    .output(ruleLogEntrySchema)
    .mutation(async ({ ctx, input }) => {
      await ownCampaign(ctx, input.id, true);
      const entry = await ctx.svc.rules.entry(input.id, input.entry_id);
      if (!entry) throw notFound('Rule log entry');
      const at = new Date().toISOString();
      if (entry.outcome !== 'applied') throw new AppError('conflict', 'This action changed nothing: nothing to undo');
      if (!(await ctx.svc.rules.markUndone(input.id, input.entry_id, at)))
        throw new AppError('conflict', 'This action was undone already');
      try {
        await undoRuleAction(ctx.svc, input.id, entry.undo);
      } catch (err) {
        await ctx.svc.rules.unmarkUndone(input.id, input.entry_id);
        throw err;
      }
      ctx.svc.log.info({ event: 'rule.undone', campaignId: input.id, entryId: entry.id }, 'rule action undone');
      return publicEntry({ ...entry, undone_at: at });
    }),
});
