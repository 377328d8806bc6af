import { z } from 'zod';

/**
 * Why a campaign does not serve right now, in the order an advertiser would fix them. Each is one
 * of the engine's own rules: the index serves only active campaigns with an approved creative
 * (engine/src/index/engine-index.ts), and budget and balance pools give no slice once spent
 * (engine/src/budget/).
 */
export const DELIVERY_REASONS = [
  'draft',
  'paused',
  'archived',
  'no_approved_creative',
  'no_funds',
  'daily_budget_spent',
  'total_budget_spent',
  'not_started',
  'ended',
  'outside_schedule',
] as const;
export type DeliveryReason = (typeof DELIVERY_REASONS)[number];

export const deliverySchema = z.object({
  serving: z.boolean(),
  reasons: z.array(z.enum(DELIVERY_REASONS)),
});
export type Delivery = z.infer<typeof deliverySchema>;

/**
 * A budget pool as the engines left it, in nano-dollars: its limit, what was spent, the sum of every
 * engine's hold and the largest one engine holds (engine/src/budget/budget-scripts.ts).
 */
export interface PoolFacts {
  limitNano: number;
  spentNano: number;
  heldNano?: number;
  largestHoldNano?: number;
}

/**
 * Whether a budget can still pay for one charge of `unitNano`, by the engines' rule. CPM: an engine bids
 * only from its own hold, topped up from what no engine holds, so the budget is spent for every
 * engine once no hold plus that rest covers one charge. Near the end, several engines may each hold a
 * little less than one charge: the remainder they keep is not spendable (until an idle engine hands
 * its hold back) and so counts as spent. CPC: the holds pay for nothing (impressions are free, clicks
 * are charged against the spend alone, and a slice is granted while one more click fits), so the
 * budget is spent once one click no longer fits beside the spend.
 */
export function budgetLeft(p: PoolFacts, unitNano: number, bidType: 'cpm' | 'cpc' = 'cpm'): boolean {
  if (p.spentNano >= p.limitNano) return false;
  if (bidType === 'cpc') return p.limitNano - p.spentNano >= Math.max(1, unitNano);
  const unheld = Math.max(0, p.limitNano - p.spentNano - (p.heldNano ?? 0));
  return unheld + (p.largestHoldNano ?? 0) >= Math.max(1, unitNano);
}

/**
 * The most one charge of a campaign can take from its budget at its own bid: one impression (CPM,
 * `bid_micro_cents` is the price of one impression in micro-cents, 10 nano-dollars each) or one
 * click (CPC, the bid in 1e-5 dollars, 10 000 nano-dollars each). Bid adjustments are left out: an
 * impression priced lower still fits, and one adjusted up is rarer than the case this rule is for.
 */
export const chargeUnitNano = (c: { bid_type: 'cpm' | 'cpc'; bid_micro_cents: number }): number =>
  c.bid_type === 'cpc' ? c.bid_micro_cents * 10_000 : c.bid_micro_cents * 10;

/** What deciding the delivery needs, read at the moment of asking. */
export interface DeliveryFacts {
  status: 'draft' | 'active' | 'paused' | 'archived';
  approvedCreatives: number;
  balanceCents: number;
  /** Today's pool. */
  daily: PoolFacts;
  /** The lifetime cap's pool, when the campaign has one (its holds are today's: the engines hold one pool). */
  total?: PoolFacts | undefined;
  /** The most one charge costs (`chargeUnitNano`); without it, a budget is spent only when spend reaches it. */
  unitNano?: number | undefined;
  /** How the campaign pays (CPM when not given): a CPC campaign's holds reserve nothing (`budgetLeft`). */
  bidType?: 'cpm' | 'cpc' | undefined;
  /** The schedule's verdict now, when the campaign has one (the engine's schedule rule). */
  schedule?: 'not_started' | 'ended' | 'outside_schedule' | undefined;
}

export function deliveryOf(f: DeliveryFacts): Delivery {
  const reasons: DeliveryReason[] = [];
  const unit = f.unitNano ?? 1;
  if (f.status !== 'active') reasons.push(f.status);
  if (f.approvedCreatives < 1) reasons.push('no_approved_creative');
  if (f.balanceCents <= 0) reasons.push('no_funds');
  if (!budgetLeft(f.daily, unit, f.bidType)) reasons.push('daily_budget_spent');
  if (f.total && !budgetLeft(f.total, unit, f.bidType)) reasons.push('total_budget_spent');
  if (f.schedule) reasons.push(f.schedule);
  return { serving: reasons.length === 0, reasons };
}
