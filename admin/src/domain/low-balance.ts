/** What the low-balance watch does for one advertiser on one look. */
export type LowBalanceStep = 'notify' | 'rearm' | 'none';

/**
 * Once per crossing: below the threshold and not yet told, tell (and remember it); back at or above
 * it after being told, forget, so the next crossing is told again. Spending that stays below sends nothing more.
 */
export function lowBalanceStep(balanceCents: number, thresholdCents: number, notified: boolean): LowBalanceStep {
  if (balanceCents < thresholdCents) return notified ? 'none' : 'notify';
  return notified ? 'rearm' : 'none';
}
