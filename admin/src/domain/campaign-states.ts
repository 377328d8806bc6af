import type { CampaignStatus } from '@adnet/schemas/api';

export type CampaignAction = 'activate' | 'pause' | 'archive';

export interface ActivationFacts {
  /** Creatives approved or waiting for moderation (or paused): activation needs one; serving needs an approved one. */
  usableCreatives: number;
  dailyBudgetCents: number;
}

export type TransitionResult = { ok: true; next: CampaignStatus; changed: boolean } | { ok: false; reason: string };

/**
 * The campaign state machine (documented in admin/docs/api.md):
 *   draft -> active (activate), active -> paused (pause), paused -> active (activate),
 *   draft | active | paused -> archived (archive). archived is final.
 * Repeating a move that already holds (activate an active campaign) succeeds
 * without a change, so clients can retry safely.
 */
export function transition(status: CampaignStatus, action: CampaignAction, facts: ActivationFacts): TransitionResult {
  const same = (next: CampaignStatus): TransitionResult => ({ ok: true, next, changed: next !== status });
  if (status === 'archived') {
    return action === 'archive' ? same('archived') : { ok: false, reason: 'An archived campaign cannot change state' };
  }
  switch (action) {
    case 'activate':
      if (status === 'active') return same('active');
      if (facts.usableCreatives < 1)
        return { ok: false, reason: 'Activation needs a creative (approved or waiting for moderation)' };
      if (facts.dailyBudgetCents < 1) return { ok: false, reason: 'Activation needs a daily budget' };
      return same('active');
    case 'pause':
      if (status === 'draft') return { ok: false, reason: 'A draft campaign is not running; activate it first' };
      return same('paused');
    case 'archive':
      return same('archived');
  }
}
