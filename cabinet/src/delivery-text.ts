import type { Outputs } from './api.ts';

type Reason = Outputs['adv']['campaigns']['get']['delivery']['reasons'][number];

/** Plain words for why a campaign does not serve right now (schemas/src/delivery.ts), each saying what to do. */
export const NOT_SERVING: Record<Reason, string> = {
  draft: 'not activated',
  paused: 'paused',
  archived: 'archived',
  no_approved_creative: 'no approved creative yet (moderation usually takes a few hours)',
  no_funds: 'no funds: add balance',
  daily_budget_spent: "today's budget is spent",
  total_budget_spent: 'total budget is spent',
  not_started: 'not started yet',
  ended: 'ended',
  outside_schedule: 'outside its schedule now',
};

export function deliveryText(d: { serving: boolean; reasons: readonly Reason[] }): string {
  return d.serving ? 'Serving' : `Not serving: ${d.reasons.map((r) => NOT_SERVING[r]).join(', ')}`;
}
