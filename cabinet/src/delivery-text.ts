// Types from the schemas rather than the API client, so the browser tests can check the pages' words with these.
import type { CreativeStatus } from '@adnet/schemas/api';
import type { DeliveryReason as Reason } from '@adnet/schemas/delivery';

/** Plain words for why a campaign does not serve right now (schemas/src/delivery.ts), each saying what to do. */
export const NOT_SERVING: Record<Reason, string> = {
  draft: 'not activated',
  paused: 'paused',
  archived: 'archived',
  no_approved_creative: 'no approved creative yet',
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

/**
 * The creative step in words, from the campaign's creatives as the API lists them (not from what the page last did):
 * none yet, some in review, or all turned down. `wait` is the one moderation estimate (auth.me, in
 * schemas/src/moderation-wait.ts wording).
 */
export function creativeStepText(creatives: readonly { status: CreativeStatus }[], wait: string): string {
  const n = (s: CreativeStatus) => creatives.filter((c) => c.status === s).length;
  if (n('approved') > 0) return 'At least one creative can serve.';
  if (n('pending_moderation') > 0)
    return `${n('pending_moderation')} creative${n('pending_moderation') === 1 ? '' : 's'} in review, ${wait}; you are told by email.`;
  if (n('paused') > 0) return 'Every approved creative is paused: resume one below.';
  if (n('rejected') > 0) return `Rejected: edit a creative or upload another below; review takes ${wait}.`;
  return `Upload a creative below; review takes ${wait} and you are told by email.`;
}

/**
 * What the overview says when nothing needs attention, true to the campaigns' states: "every active campaign is
 * serving" only when there is one, and every one of them is.
 */
export function allClearText(campaigns: readonly { status: string; delivery: { serving: boolean } }[]): string {
  const active = campaigns.filter((c) => c.status === 'active');
  if (active.length === 0) return 'No campaign is active.';
  return active.every((c) => c.delivery.serving) ? 'Every active campaign is serving.' : '';
}

/**
 * The campaigns the overview lists as needing attention: each that is meant to run but does not serve. A draft is
 * meant to run (it waits on steps the advertiser has to take); a paused or archived one was stopped on purpose.
 */
export const needsAttention = <C extends { status: string; delivery: { serving: boolean } }>(
  campaigns: readonly C[],
): C[] => campaigns.filter((c) => (c.status === 'active' || c.status === 'draft') && !c.delivery.serving);
