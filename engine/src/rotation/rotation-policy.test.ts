import { describe, expect, it } from 'vitest';
import { EXPLORATION_FLOOR, optimizeShares, pickByShares, rotationShares, seededRandom } from './rotation-policy.ts';
import type { CreativeCounts } from './rotation-policy.ts';

const creative = (
  creativeId: number,
  impressions: number,
  clicks: number,
  { conversions = 0, weight = 100 }: Partial<Pick<CreativeCounts, 'conversions' | 'weight'>> = {},
): CreativeCounts => ({
  creativeId,
  impressions,
  clicks,
  conversions,
  weight,
});
const sum = (xs: number[]) => xs.reduce((s, x) => s + x, 0);

describe('optimize (Thompson sampling with an exploration floor)', () => {
  it('splits evenly while nothing is known', () => {
    const shares = optimizeShares([creative(1, 0, 0), creative(2, 0, 0)], seededRandom(1));
    for (const s of shares) expect(s).toBeCloseTo(0.5, 1);
    expect(sum(shares)).toBeCloseTo(1, 9);
  });

  it('splits exactly evenly, without drawing, when every creative has the same evidence', () => {
    let draws = 0;
    const counting = () => (draws++, 0.5);
    expect(optimizeShares([creative(1, 0, 0), creative(2, 0, 0), creative(3, 0, 0)], counting)).toEqual([
      1 / 3,
      1 / 3,
      1 / 3,
    ]);
    expect(optimizeShares([creative(1, 700, 7), creative(2, 700, 7)], counting)).toEqual([0.5, 0.5]);
    expect(draws).toBe(0);
  });

  it('gives a clearly better creative most of the traffic after enough impressions', () => {
    const shares = optimizeShares([creative(1, 5_000, 250), creative(2, 5_000, 25)], seededRandom(2));
    expect(shares[0]).toBeGreaterThan(0.9);
    // The loser keeps its floor.
    expect(shares[1]).toBeCloseTo(EXPLORATION_FLOOR / 2, 3);
  });

  it('still explores a new creative beside a proven one', () => {
    const shares = optimizeShares([creative(1, 20_000, 400), creative(2, 0, 0)], seededRandom(3));
    // A fresh creative's wide posterior beats a 2% one now and then, on top of its floor.
    expect(shares[1]).toBeGreaterThanOrEqual(EXPLORATION_FLOOR / 2);
    expect(shares[1]).toBeGreaterThan(0.06);
  });

  it('starts a new creative as an average one of its campaign: measured, neither favoured nor written off', () => {
    const shares = optimizeShares(
      [creative(1, 5_000, 500), creative(2, 5_000, 50), creative(3, 0, 0)],
      seededRandom(6),
    );
    expect(shares[2]).toBeGreaterThanOrEqual(EXPLORATION_FLOOR / 3);
    expect(shares[2]).toBeLessThan(0.3);
    expect(shares[0]).toBeGreaterThan(0.6);
  });

  it('judges by conversions once the campaign has any', () => {
    // More clicks for 1, but 2 converts.
    const shares = optimizeShares(
      [creative(1, 4_000, 200), creative(2, 4_000, 80, { conversions: 40 })],
      seededRandom(4),
    );
    expect(shares[1]).toBeGreaterThan(0.9);
  });
});

describe('even and weighted', () => {
  it('even splits equally; weighted follows the weights, evenly when all are zero', () => {
    const counts = [creative(1, 900, 90, { weight: 75 }), creative(2, 10, 0, { weight: 25 })];
    expect(rotationShares('even', counts, Math.random)).toEqual([0.5, 0.5]);
    expect(rotationShares('weighted', counts, Math.random)).toEqual([0.75, 0.25]);
    expect(
      rotationShares('weighted', [creative(1, 0, 0, { weight: 0 }), creative(2, 0, 0, { weight: 0 })], Math.random),
    ).toEqual([0.5, 0.5]);
  });
});

describe('pickByShares', () => {
  it('draws each index in proportion to its share', () => {
    const rand = seededRandom(5);
    const hits = [0, 0, 0];
    for (let i = 0; i < 30_000; i++) hits[pickByShares([0.2, 0.5, 0.3], rand())]! += 1;
    expect(hits.map((h) => Math.round(h / 3_000))).toEqual([2, 5, 3]);
  });
});
