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

/** What deciding the delivery needs, read at the moment of asking. */
export interface DeliveryFacts {
  status: 'draft' | 'active' | 'paused' | 'archived';
  approvedCreatives: number;
  balanceCents: number;
  dailyBudgetCents: number;
  dailySpentCents: number;
  /** Lifetime cap and spend, when the campaign has one. */
  totalBudgetCents?: number | undefined;
  totalSpentCents?: number | undefined;
  /** The schedule's verdict now, when the campaign has one (the engine's schedule rule). */
  schedule?: 'not_started' | 'ended' | 'outside_schedule' | undefined;
}

export function deliveryOf(f: DeliveryFacts): Delivery {
  const reasons: DeliveryReason[] = [];
  if (f.status !== 'active') reasons.push(f.status);
  if (f.approvedCreatives < 1) reasons.push('no_approved_creative');
  if (f.balanceCents <= 0) reasons.push('no_funds');
  if (f.dailySpentCents >= f.dailyBudgetCents) reasons.push('daily_budget_spent');
  if (f.totalBudgetCents !== undefined && (f.totalSpentCents ?? 0) >= f.totalBudgetCents) reasons.push('total_budget_spent');
  if (f.schedule) reasons.push(f.schedule);
  return { serving: reasons.length === 0, reasons };
}
