import { describe, expect, it } from 'vitest';
import { CostEstimate } from './cost-estimate.ts';

describe('the cost estimate of the mirror’s work', () => {
  it('is the initial guess until something is measured, then what was measured', () => {
    const e = new CostEstimate(0.125);
    expect(e.ms).toBe(0.125);
    e.add(0.4);
    expect(e.ms).toBe(0.4);
  });

  it('leaves out measurements a collection fell into, up to half of the window', () => {
    const e = new CostEstimate(0.125, 8);
    for (let i = 0; i < 8; i++) e.add(i % 2 === 0 ? 0.3 : 0.31);
    // Three groups in a row with a young collection inside (a 1 ms group taking 6-8 ms).
    e.add(6);
    e.add(8);
    e.add(7);
    expect(e.ms).toBeLessThanOrEqual(0.31);
    e.add(9);
    expect(e.ms).toBeLessThanOrEqual(0.31);
  });

  it('takes up a cost that really moved once most of the window shows it', () => {
    const e = new CostEstimate(0.125, 8);
    for (let i = 0; i < 8; i++) e.add(0.2);
    for (let i = 0; i < 4; i++) e.add(1);
    expect(e.ms).toBe(0.2);
    e.add(1);
    expect(e.ms).toBe(1);
    // And back down the same way.
    for (let i = 0; i < 5; i++) e.add(0.2);
    expect(e.ms).toBe(0.2);
  });
});
