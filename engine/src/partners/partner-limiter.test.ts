import { describe, expect, it } from 'vitest';
import { PartnerLimiter } from './partner-limiter.ts';

/** How many of `n` requests to partner `id` the limiter lets through. */
const admitted = (l: PartnerLimiter, n: number, { id, qps, keep = 0 }: { id: number; qps: number; keep?: number }) =>
  Array.from({ length: n }, () => l.take(id, qps, keep)).filter(Boolean).length;

describe('PartnerLimiter', () => {
  it('admits qps_limit per second, split across engines, and refills over time', () => {
    let t = 0;
    const one = new PartnerLimiter(1, () => t);
    expect(admitted(one, 120, { id: 1, qps: 100 })).toBe(100);
    t += 500;
    expect(admitted(one, 100, { id: 1, qps: 100 })).toBe(50);
    const shared = new PartnerLimiter(4, () => t);
    expect(admitted(shared, 100, { id: 2, qps: 100 })).toBe(25);
    expect(one.take(3, 100)).toBe(true);
  });

  it('asks a partner whose limit is below the engine count at its share of the limit', () => {
    let t = 0;
    // 1 QPS over 2 engines: one request every 2 s from this engine.
    const l = new PartnerLimiter(2, () => t);
    expect(admitted(l, 5, { id: 1, qps: 1 })).toBe(1);
    expect(l.msUntil(1, 1)).toBe(2000);
    t += 1999;
    expect(l.take(1, 1)).toBe(false);
    t += 1;
    expect(l.take(1, 1)).toBe(true);
  });

  it('leaves the kept share of the bucket to callers that keep none', () => {
    let t = 0;
    const l = new PartnerLimiter(1, () => t);
    // Of a full bucket of 10, a caller keeping half takes 5; page views still find 5.
    expect(admitted(l, 20, { id: 1, qps: 10, keep: 0.5 })).toBe(5);
    expect(l.msUntil(1, 10, 0.5)).toBe(100);
    expect(l.msUntil(1, 10)).toBe(0);
    expect(admitted(l, 20, { id: 1, qps: 10 })).toBe(5);
    // Empty: one token in 100 ms for page views, six (five kept and one) for the keeping caller.
    expect(l.msUntil(1, 10)).toBe(100);
    expect(l.msUntil(1, 10, 0.5)).toBe(600);
    t += 600;
    expect(l.take(1, 10, 0.5)).toBe(true);
    expect(l.take(1, 10, 0.5)).toBe(false);
  });

  it('never keeps so much that the keeping caller could not take from a full bucket', () => {
    const l = new PartnerLimiter(1, () => 0);
    // A bucket of one: keeping half of it would starve the keeping caller forever.
    expect(l.msUntil(1, 1, 0.5)).toBe(0);
    expect(l.take(1, 1, 0.5)).toBe(true);
    expect(l.take(1, 1, 0.5)).toBe(false);
  });
});
