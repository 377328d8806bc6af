import { describe, expect, it } from 'vitest';
import { axisFigure } from './chart.ts';

describe('chart axis figures', () => {
  it('stay short enough for the margin made for them', () => {
    expect(axisFigure(0)).toBe('0');
    expect(axisFigure(9_999)).toBe('9999');
    expect(axisFigure(12_345)).toBe('12k');
    expect(axisFigure(3_400_000)).toBe('3.4M');
    expect(axisFigure(45_000_000)).toBe('45M');
    for (const v of [7, 99_999, 999_999, 1_234_567, 987_654_321]) expect(axisFigure(v).length).toBeLessThanOrEqual(5);
  });
});
