import { describe, expect, it } from 'vitest';
import { budgetDay } from './budget-day.ts';

describe('budgetDay', () => {
  it('names the UTC day, across midnight and back in time, as a fresh Date would', () => {
    const midnight = Date.UTC(2026, 10, 23);
    for (const t of [
      midnight - 1,
      midnight,
      midnight + 1,
      midnight + 86_399_999,
      midnight + 86_400_000,
      midnight - 86_400_000 * 400,
      0,
      midnight,
    ]) {
      expect(budgetDay(t)).toBe(new Date(t).toISOString().slice(0, 10));
    }
  });
});
