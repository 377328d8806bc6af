import { describe, expect, it } from 'vitest';
import { seededRandom } from '../rotation/rotation-policy.ts';
import { initialPacing, nextPacing } from './pacing-controller.ts';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const TICK = 10_000;
const BUDGET = 100 * 1e9; // $100 a day, in nano-dollars
/** Stated tolerance: no hour of even pacing spends more than its share (the remaining budget over the remaining hours at its start) plus this. */
const HOUR_TOLERANCE = 0.25;

/**
 * Auctions per second the campaign would win over a day (UTC): a quiet night, a daytime rise, an
 * evening peak, with noise; each at $2 CPM. At full rate it could spend about 5x its budget.
 */
function trafficPerSecond(t: number): number {
  const h = t / HOUR;
  return 0.75 + 4.25 * Math.max(0, Math.sin(((h - 6) / 24) * 2 * Math.PI)) + 1.25 * Math.exp(-((h - 20) ** 2) / 4);
}

/** A day compressed into ticks: spend per tick from the traffic and the participation rate; hourly spend out. */
function simulate(pacing: 'even' | 'asap'): number[] {
  const rand = seededRandom(42);
  const hourly = new Array<number>(24).fill(0);
  let spent = 0;
  let state = initialPacing(0, 0);
  for (let t = 0; t < DAY; t += TICK) {
    const rate = pacing === 'even' ? state.rate : 1;
    const auctions = trafficPerSecond(t) * (TICK / 1_000) * rate * (0.8 + 0.4 * rand());
    const spend = Math.min(BUDGET - spent, auctions * 2_000_000); // $2 CPM = 2 000 000 nano-dollars an impression
    spent += spend;
    hourly[Math.floor(t / HOUR)]! += spend;
    state = nextPacing(state, t + TICK, spent, BUDGET, DAY);
  }
  return hourly;
}

const table = (hourly: number[]) => hourly.map((s, h) => `${String(h).padStart(2, '0')}h ${(s / 1e9).toFixed(2).padStart(6)} USD`).join('\n');

describe('even pacing over a simulated day', () => {
  it('spends at least 90% of the budget by the end of the day, no hour past its share plus the tolerance', () => {
    const hourly = simulate('even');
    const total = hourly.reduce((a, b) => a + b, 0);
    console.log(`even pacing, $100/day, hourly spend:\n${table(hourly)}\ntotal ${(total / 1e9).toFixed(2)} USD`);
    expect(total).toBeGreaterThanOrEqual(0.9 * BUDGET);
    expect(total).toBeLessThanOrEqual(BUDGET + 1);
    let before = 0;
    for (let h = 0; h < 24; h++) {
      const share = (BUDGET - before) / (24 - h);
      expect(hourly[h], `hour ${h}`).toBeLessThanOrEqual(share * (1 + HOUR_TOLERANCE));
      before += hourly[h] ?? 0;
    }
  });

  it('asap spends the budget as fast as traffic allows, long before the day ends', () => {
    const hourly = simulate('asap');
    console.log(`asap, $100/day, hourly spend:\n${table(hourly)}`);
    expect(hourly.reduce((a, b) => a + b, 0)).toBeCloseTo(BUDGET, -1);
    expect(hourly.slice(12).every((s) => s === 0)).toBe(true);
  });
});

describe('nextPacing', () => {
  it('slows a campaign that spends ahead of its even share, speeds one behind it, within bounds', () => {
    const s = initialPacing(0, 0);
    // Remaining $100 over 100 s: $1 allowed per second; $4 spent in 1 s is 4x ahead.
    const ahead = nextPacing({ ...s, rate: 0.5 }, 1_000, 4e9, 100e9, 100_000);
    expect(ahead.rate).toBeCloseTo(0.25, 5);
    const behind = nextPacing({ ...s, rate: 0.1 }, 1_000, 0.25e9, 100e9, 100_000);
    expect(behind.rate).toBeCloseTo(0.2, 5);
    expect(nextPacing({ ...s, rate: 0.8 }, 1_000, 0, 100e9, 100_000).rate).toBe(1);
    expect(nextPacing(s, 1_000, 100e9, 100e9, 100_000).rate).toBeLessThan(0.01);
  });
});
