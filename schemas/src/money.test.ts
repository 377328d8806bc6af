import { describe, expect, it } from 'vitest';
import { decimalPlaces, usdToCents, usdToMicroCents } from './money.ts';

describe('money', () => {
  it('counts decimal places of the shortest spelling', () => {
    expect(decimalPlaces(1)).toBe(0);
    expect(decimalPlaces(0.29)).toBe(2);
    expect(decimalPlaces(0.00001)).toBe(5);
    expect(decimalPlaces(1e-7)).toBe(7);
    expect(decimalPlaces(123.456789)).toBe(6);
    expect(decimalPlaces(Number.NaN)).toBe(Infinity);
  });

  it('converts dollars exactly where binary floats would round down', () => {
    expect(0.29 * 100_000).not.toBe(29_000);
    expect(usdToMicroCents(0.29)).toBe(29_000);
    expect(usdToMicroCents(1.5)).toBe(150_000);
    expect(usdToMicroCents(0.00001)).toBe(1);
    expect(usdToMicroCents(999.99999)).toBe(99_999_999);
    expect(usdToCents(50)).toBe(5_000);
    expect(usdToCents(19.99)).toBe(1_999);
    expect(usdToCents(1_000_000)).toBe(100_000_000);
  });
});
