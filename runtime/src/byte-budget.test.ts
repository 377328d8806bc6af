import { describe, expect, it } from 'vitest';
import { ByteBudget } from './byte-budget.ts';

describe('ByteBudget', () => {
  it('refuses what would pass the limit, takes only the difference as a body grows, and gives back once', () => {
    const budget = new ByteBudget(100);
    const a = budget.lease();
    const b = budget.lease();
    expect(a.holdUpTo(60)).toBe(true);
    expect(a.holdUpTo(40)).toBe(true);
    expect(budget.inUse).toBe(60);
    expect(b.holdUpTo(50)).toBe(false);
    expect(budget.inUse).toBe(60);
    expect(b.holdUpTo(40)).toBe(true);
    expect(a.holdUpTo(61)).toBe(false);
    a.release();
    a.release();
    expect(budget.inUse).toBe(40);
    expect(a.holdUpTo(10)).toBe(false);
    b.release();
    expect(budget.inUse).toBe(0);
  });
});
