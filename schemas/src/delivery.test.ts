import { describe, expect, it } from 'vitest';
import { deliveryOf } from './delivery.ts';

const serving = { status: 'active', approvedCreatives: 1, balanceCents: 500, dailyBudgetCents: 1_000, dailySpentCents: 10 } as const;

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
        dailySpentCents: 1_000,
        totalBudgetCents: 50,
        totalSpentCents: 50,
        schedule: 'ended',
      }),
    ).toEqual({
      serving: false,
      reasons: ['paused', 'no_approved_creative', 'no_funds', 'daily_budget_spent', 'total_budget_spent', 'ended'],
    });
    expect(deliveryOf({ ...serving, status: 'draft' }).reasons).toEqual(['draft']);
  });
});
