import { describe, expect, it } from 'vitest';
import { lowBalanceStep } from './low-balance.ts';

describe('low-balance notice, once per crossing', () => {
  it('tells on the way down once, stays quiet while below, re-arms on the way up', () => {
    let notified = false;
    const told: number[] = [];
    for (const balance of [5000, 1200, 999, 800, 10, 0, 999, 1000, 1500, 900, 100]) {
      const step = lowBalanceStep(balance, 1000, notified);
      if (step === 'notify') told.push(balance);
      if (step !== 'none') notified = step === 'notify';
    }
    expect(told).toEqual([999, 900]);
  });

  it('counts exactly the threshold as not low', () => {
    expect(lowBalanceStep(1000, 1000, false)).toBe('none');
    expect(lowBalanceStep(999, 1000, false)).toBe('notify');
  });
});
