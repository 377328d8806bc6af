import { describe, expect, it } from 'vitest';
import { fillRate } from './fill-rate.ts';

describe('fillRate', () => {
  it('is impressions over impressions and unfilled requests, to four places, and null without traffic', () => {
    expect(fillRate(3, 1)).toBe(0.75);
    expect(fillRate(0, 4)).toBe(0);
    expect(fillRate(5, 0)).toBe(1);
    expect(fillRate(2, 1)).toBe(0.6667);
    expect(fillRate(0, 0)).toBeNull();
  });
});
