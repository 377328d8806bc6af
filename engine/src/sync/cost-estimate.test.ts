import { describe, expect, it } from 'vitest';
import { CostEstimate } from './cost-estimate.ts';

/** An estimate over a window of eight whose every measurement was `ms`. */
const steady = (ms: number): CostEstimate => {
  const e = new CostEstimate(0.125, 8);
  for (let i = 0; i < 8; i++) e.add(ms);
  return e;
};

describe('the cost estimate of the mirror’s work', () => {
  it('is the initial guess until something is measured, then what was measured', () => {
    const e = new CostEstimate(0.125);
    expect(e.ms).toBe(0.125);
    e.add(0.4);
    expect(e.ms).toBe(0.4);
  });

  it('leaves out a measurement a collection fell into once the next one is back to the usual cost', () => {
    const e = new CostEstimate(0.125, 8);
    for (let i = 0; i < 8; i++) e.add(i % 2 === 0 ? 0.3 : 0.31);
    // Three groups with a young collection inside (a 1 ms group taking 6-8 ms), each followed by a usual one.
    for (const collected of [6, 8, 7]) {
      e.add(collected);
      e.add(0.3);
      expect(e.ms).toBeLessThanOrEqual(0.31);
    }
  });

  it('takes a rise at once: the next group is sized for what the last one cost', () => {
    // V8's marking for a full collection: every change about ten times as dear from one group on.
    const e = steady(0.04);
    e.add(0.45);
    expect(e.ms).toBe(0.45);
    e.add(0.4);
    expect(e.ms).toBe(0.4);
  });

  it('leaves a measurement within a few times the median to the median', () => {
    // While V8 marks, one change costs 0.35-1.6 ms from one group to the next: groups sized from the dearest
    // would hold one change each.
    const e = steady(0.5);
    e.add(1.4);
    expect(e.ms).toBe(0.5);
  });

  it('takes up a cost that really moved, and lets it go once half of the window is back', () => {
    const e = steady(0.2);
    for (let i = 0; i < 5; i++) e.add(1);
    expect(e.ms).toBe(1);
    // Back down once half of the window shows it.
    for (let i = 0; i < 3; i++) e.add(0.2);
    expect(e.ms).toBe(1);
    e.add(0.2);
    expect(e.ms).toBe(0.2);
  });
});
