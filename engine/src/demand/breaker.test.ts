import { describe, expect, it } from 'vitest';
import { CircuitBreaker } from './breaker.ts';

describe('CircuitBreaker', () => {
  it('opens after consecutive failures, lets one probe through after the cool-down, closes on its success', () => {
    const b = new CircuitBreaker(3, 1_000);
    b.failure(1, 0);
    b.failure(1, 0);
    b.success(1); // a success resets the run
    b.failure(1, 0);
    b.failure(1, 0);
    expect(b.allow(1, 10)).toBe(true);
    b.failure(1, 10);
    expect(b.state(1)).toBe('open');
    expect(b.allow(1, 500)).toBe(false);
    expect(b.allow(2, 500)).toBe(true); // per partner
    expect(b.allow(1, 1_010)).toBe(true); // the probe
    expect(b.state(1)).toBe('half_open');
    expect(b.allow(1, 1_011)).toBe(false); // one probe at a time
    b.success(1);
    expect(b.state(1)).toBe('closed');
    expect(b.allow(1, 1_012)).toBe(true);
  });

  it('a failed probe opens the circuit for another cool-down', () => {
    const b = new CircuitBreaker(1, 1_000);
    b.failure(7, 0);
    expect(b.allow(7, 1_000)).toBe(true);
    b.failure(7, 1_000);
    expect(b.state(7)).toBe('open');
    expect(b.allow(7, 1_999)).toBe(false);
    expect(b.allow(7, 2_000)).toBe(true);
  });
});
