import { describe, expect, it } from 'vitest';
import { PartnerLimiter } from './partner-limiter.ts';

describe('PartnerLimiter', () => {
  it('admits qps_limit per second, split across engines, and refills over time', () => {
    let t = 0;
    const one = new PartnerLimiter(1, () => t);
    const admitted = Array.from({ length: 120 }, () => one.take(1, 100)).filter(Boolean).length;
    expect(admitted).toBe(100);
    t += 500;
    expect(Array.from({ length: 100 }, () => one.take(1, 100)).filter(Boolean).length).toBe(50);
    const shared = new PartnerLimiter(4, () => t);
    expect(Array.from({ length: 100 }, () => shared.take(2, 100)).filter(Boolean).length).toBe(25);
    expect(one.take(3, 100)).toBe(true);
  });
});
