import { describe, expect, it } from 'vitest';
import { budgetLeft, chargeUnitNano, deliveryOf } from './delivery.ts';

const CENT = 10_000_000;
const serving = {
  status: 'active',
  approvedCreatives: 1,
  balanceCents: 500,
  daily: { limitNano: 1_000 * CENT, spentNano: 10 * CENT },
} as const;

describe('deliveryOf', () => {
  it('serves an active, funded campaign with an approved creative and budget left', () => {
    expect(deliveryOf(serving)).toEqual({ serving: true, reasons: [] });
  });

  it('names every reason it does not serve, in the order to fix them', () => {
    expect(
      deliveryOf({
        ...serving,
        status: 'paused',
        approvedCreatives: 0,
        balanceCents: 0,
        daily: { limitNano: 1_000 * CENT, spentNano: 1_000 * CENT },
        total: { limitNano: 50 * CENT, spentNano: 50 * CENT },
        schedule: 'ended',
      }),
    ).toEqual({
      serving: false,
      reasons: ['paused', 'no_approved_creative', 'no_funds', 'daily_budget_spent', 'total_budget_spent', 'ended'],
    });
    expect(deliveryOf({ ...serving, status: 'draft' }).reasons).toEqual(['draft']);
  });

  it('counts a budget spent once no engine can gather one charge, as the engines stop', () => {
    // $6 CPM: one impression is 0.6 cents.
    const unit = chargeUnitNano({ bid_type: 'cpm', bid_micro_cents: 600_000 });
    expect(unit).toBe(0.6 * CENT);
    expect(chargeUnitNano({ bid_type: 'cpc', bid_micro_cents: 29_000 })).toBe(29 * CENT);
    const limitNano = 100 * CENT;
    // Two engines each hold 0.4 cents, nothing else is left: 0.8 cents remain and neither can bid.
    const stuck = { limitNano, spentNano: limitNano - 0.8 * CENT, heldNano: 0.8 * CENT, largestHoldNano: 0.4 * CENT };
    expect(budgetLeft(stuck, unit)).toBe(false);
    expect(deliveryOf({ ...serving, daily: stuck, unitNano: unit }).reasons).toEqual(['daily_budget_spent']);
    // One engine holding enough, or enough held by nobody: still serving.
    expect(budgetLeft({ ...stuck, largestHoldNano: 0.6 * CENT, heldNano: 0.8 * CENT }, unit)).toBe(true);
    expect(budgetLeft({ limitNano, spentNano: limitNano - 0.6 * CENT }, unit)).toBe(true);
    expect(budgetLeft({ limitNano, spentNano: limitNano - 0.5 * CENT }, unit)).toBe(false);
    // Without a unit: spent only when spend reaches the limit.
    expect(budgetLeft({ limitNano, spentNano: limitNano - 1 }, 0)).toBe(true);
    expect(budgetLeft({ limitNano, spentNano: limitNano + 5 }, 0)).toBe(false);
    // The lifetime cap by the same rule, with today's holds.
    expect(deliveryOf({ ...serving, total: { ...stuck }, unitNano: unit }).reasons).toEqual(['total_budget_spent']);
  });

  it("counts a CPC campaign's budget spent only once one click no longer fits beside the spend, whatever the engines hold", () => {
    const unit = chargeUnitNano({ bid_type: 'cpc', bid_micro_cents: 50_000 }); // $0.50 a click
    const limitNano = 250 * CENT;
    // Two engines hold 25 cents each: for a CPC campaign they reserve nothing a click could not spend.
    const oneClickLeft = { limitNano, spentNano: 200 * CENT, heldNano: 50 * CENT, largestHoldNano: 25 * CENT };
    expect(budgetLeft(oneClickLeft, unit, 'cpc')).toBe(true);
    expect(budgetLeft(oneClickLeft, unit)).toBe(false);
    expect(
      deliveryOf({ ...serving, daily: oneClickLeft, total: oneClickLeft, unitNano: unit, bidType: 'cpc' }),
    ).toEqual({ serving: true, reasons: [] });
    const lessThanAClick = { ...oneClickLeft, spentNano: 200 * CENT + 1 };
    expect(
      deliveryOf({ ...serving, daily: lessThanAClick, total: lessThanAClick, unitNano: unit, bidType: 'cpc' }).reasons,
    ).toEqual(['daily_budget_spent', 'total_budget_spent']);
  });
});
