import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { seededRandom } from '../rotation/rotation-policy.ts';
import { compileSchedule, servingTimeOfDay } from '@adnet/schemas/schedule';
import { MIN_RATE, alwaysServing, atRest, initialPacing, nextPacing } from './pacing-controller.ts';
import type { ServingTime } from './pacing-controller.ts';

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
    state = nextPacing(state, { now: t + TICK, spent, budget: BUDGET, dayEnd: DAY });
  }
  return hourly;
}

const table = (hourly: number[]) =>
  hourly.map((s, h) => `${String(h).padStart(2, '0')}h ${(s / 1e9).toFixed(2).padStart(6)} USD`).join('\n');

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
    const ahead = nextPacing({ ...s, rate: 0.5 }, { now: 1_000, spent: 4e9, budget: 100e9, dayEnd: 100_000 });
    expect(ahead.rate).toBeCloseTo(0.25, 5);
    const behind = nextPacing({ ...s, rate: 0.1 }, { now: 1_000, spent: 0.25e9, budget: 100e9, dayEnd: 100_000 });
    expect(behind.rate).toBeCloseTo(0.2, 5);
    expect(nextPacing({ ...s, rate: 0.8 }, { now: 1_000, spent: 0, budget: 100e9, dayEnd: 100_000 }).rate).toBe(1);
    expect(nextPacing(s, { now: 1_000, spent: 100e9, budget: 100e9, dayEnd: 100_000 }).rate).toBeLessThan(0.01);
  });
});

describe('even pacing of a dayparted campaign, in its time zone', () => {
  // Wednesday 14 January 2026, a winter day: New York is UTC-5, so 9-17 there is 14-22 UTC.
  const DAY_START = Date.parse('2026-01-14T00:00:00Z');
  const NINE_TO_FIVE = { wed: [9, 10, 11, 12, 13, 14, 15, 16] };
  const schedule = compileSchedule({ dayparting: NINE_TO_FIVE, timezone: 'America/New_York' });
  const serving = servingTimeOfDay(schedule, DAY_START);

  /** The budget day replayed in ticks; the engine's schedule filter lets auctions through only in the campaign's hours. */
  function simulateDayparted(clock: ServingTime): number[] {
    const rand = seededRandom(7);
    const hourly = new Array<number>(24).fill(0);
    let spent = 0;
    let state = initialPacing(DAY_START, 0);
    for (let t = 0; t < DAY; t += TICK) {
      const open = serving(DAY_START + t, DAY_START + t + TICK) > 0;
      const auctions = open ? trafficPerSecond(t) * (TICK / 1_000) * state.rate * (0.8 + 0.4 * rand()) : 0;
      const spend = Math.min(BUDGET - spent, auctions * 2_000_000);
      spent += spend;
      hourly[Math.floor(t / HOUR)]! += spend;
      state = nextPacing(state, {
        now: DAY_START + t + TICK,
        spent,
        budget: BUDGET,
        dayEnd: DAY_START + DAY,
        serving: clock,
      });
    }
    return hourly;
  }

  it('measures serving time by the local hours', () => {
    expect(serving(DAY_START, DAY_START + DAY)).toBe(8 * HOUR);
    expect(serving(DAY_START + 13.5 * HOUR, DAY_START + 14.5 * HOUR)).toBe(HOUR / 2);
    expect(servingTimeOfDay(null, DAY_START)(DAY_START, DAY_START + HOUR)).toBe(HOUR);
    // A start inside the day counts from the start, to the millisecond.
    const late = servingTimeOfDay(compileSchedule({ start_at: '2026-01-14T20:10:00Z' }), DAY_START);
    expect(late(DAY_START, DAY_START + DAY)).toBe(3 * HOUR + 50 * 60_000);
  });

  it('spreads the budget across 9-17 New York time, at least 90% spent, no hour past its share plus the tolerance', () => {
    const hourly = simulateDayparted(serving);
    const total = hourly.reduce((a, b) => a + b, 0);
    console.log(
      `even pacing, 9-17 America/New_York (14-22 UTC), $100/day, hourly spend (UTC):\n${table(hourly)}\ntotal ${(total / 1e9).toFixed(2)} USD`,
    );
    expect(total).toBeGreaterThanOrEqual(0.9 * BUDGET);
    expect(hourly.every((s, h) => s === 0 || (h >= 14 && h < 22))).toBe(true);
    let before = 0;
    for (let h = 14; h < 22; h++) {
      const share = (BUDGET - before) / (22 - h);
      expect(hourly[h], `hour ${h}`).toBeLessThanOrEqual(share * (1 + HOUR_TOLERANCE));
      before += hourly[h] ?? 0;
    }
    // Paced over the whole UTC day instead (as before), the same campaign leaves much of its budget unspent.
    const wholeDay = simulateDayparted(alwaysServing).reduce((a, b) => a + b, 0);
    console.log(`paced over the whole day instead: total ${(wholeDay / 1e9).toFixed(2)} USD`);
    expect(wholeDay).toBeLessThan(0.9 * BUDGET);
  });

  it('keeps the rate out of hours: nothing spent and no serving time is no news', () => {
    const s = { rate: 0.3, spentAt: DAY_START, lastSpent: 5e9 };
    expect(
      nextPacing(s, { now: DAY_START + HOUR, spent: 5e9, budget: BUDGET, dayEnd: DAY_START + DAY, serving }).rate,
    ).toBe(0.3);
  });
});

describe('a controller at rest', () => {
  it('keeps its rate through any step without new spend, whatever the times and the hours', () => {
    const hours = fc.option(fc.uniqueArray(fc.integer({ min: 0, max: 23 }), { maxLength: 24 }), { freq: 2 });
    fc.assert(
      fc.property(
        fc.record({
          full: fc.boolean(),
          budget: fc.integer({ min: 0, max: 1e12 }),
          spent: fc.integer({ min: 0, max: 1e12 }),
          from: fc.integer({ min: 0, max: 2 * DAY }),
          after: fc.integer({ min: 1, max: 2 * DAY }),
          h: hours,
        }),
        ({ full, budget, spent, from, after, h }) => {
          const s = { rate: full ? 1 : MIN_RATE, spentAt: from, lastSpent: spent };
          fc.pre(atRest(s, budget));
          const schedule = compileSchedule({
            start_at: null,
            end_at: null,
            timezone: 'UTC',
            dayparting: h && { mon: h, tue: h, wed: h, thu: h, fri: h, sat: h, sun: h },
          });
          expect(
            nextPacing(s, { now: from + after, spent, budget, dayEnd: DAY, serving: servingTimeOfDay(schedule, 0) })
              .rate,
          ).toBe(s.rate);
        },
      ),
      { numRuns: 2_000 },
    );
  });
});
