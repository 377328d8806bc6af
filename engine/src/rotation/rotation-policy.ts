import type { ROTATIONS } from '@adnet/schemas/api';

/**
 * How a campaign's traffic is split between its creatives. Plain functions over counts: the engine
 * recomputes the shares every few seconds from counts shared across engines (rotation-stats.ts) and
 * the hot path only draws from them.
 */
export type Rotation = (typeof ROTATIONS)[number];

export interface CreativeCounts {
  creativeId: number;
  impressions: number;
  clicks: number;
  conversions: number;
  /** 0-100, for `weighted`. */
  weight: number;
}

/** Part of the traffic split evenly whatever the evidence, so a new or unlucky creative keeps being measured. */
export const EXPLORATION_FLOOR = 0.1;
/**
 * How many impressions' worth of belief the campaign's own rate is as every creative's prior: a new
 * creative starts as an average one of its campaign, neither favoured nor written off.
 */
export const PRIOR_IMPRESSIONS = 50;
/** Draws per share computation: shares are exact to about 1/sqrt(draws) (about 1%). */
const DRAWS = 4_000;

/** A small, seedable generator (mulberry32): the policy is reproducible in tests. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

function normal(rand: () => number): number {
  // Box-Muller; 1 - rand() keeps the logarithm finite.
  return Math.sqrt(-2 * Math.log(1 - rand())) * Math.cos(2 * Math.PI * rand());
}

/** Gamma(shape, 1) by Marsaglia and Tsang; shapes below 1 by the boost X * U^(1/shape). */
function gamma(shape: number, rand: () => number): number {
  if (shape < 1) return gamma(shape + 1, rand) * Math.pow(rand(), 1 / shape);
  const d = shape - 1 / 3;
  const c = 1 / Math.sqrt(9 * d);
  for (;;) {
    let x: number;
    let v: number;
    do {
      x = normal(rand);
      v = 1 + c * x;
    } while (v <= 0);
    v = v * v * v;
    const u = rand();
    if (u < 1 - 0.0331 * x ** 4 || Math.log(u) < 0.5 * x * x + d * (1 - v + Math.log(v))) return d * v;
  }
}

const beta = (a: number, b: number, rand: () => number): number => {
  const x = gamma(a, rand);
  return x / (x + gamma(b, rand));
};

/**
 * Thompson sampling, as shares: each creative's rate of success (clicks per impression, or
 * conversions per impression once the campaign has any conversion) has a Beta posterior whose prior
 * is the campaign's pooled rate worth PRIOR_IMPRESSIONS impressions, and a creative gets the traffic
 * share equal to its probability of being the best, estimated by drawing from every posterior; then
 * EXPLORATION_FLOOR of the traffic is split evenly on top. A creative with little evidence has a
 * wide posterior, so it still wins often enough to be measured; a clearly better one takes most of
 * the rest.
 */
/** What a creative is judged by: conversions once the campaign has any, else clicks (never above impressions). */
function successesOf(counts: readonly CreativeCounts[]): (c: CreativeCounts) => number {
  const byConversions = counts.some((c) => c.conversions > 0);
  return (c) => Math.min(byConversions ? c.conversions : c.clicks, c.impressions);
}

/**
 * Every creative has the same evidence (a new campaign's zeros among them): each is the best equally
 * often, exactly, so `optimizeShares` needs no draws. Most campaigns of a network are here.
 */
export function sameEvidence(counts: readonly CreativeCounts[]): boolean {
  const successes = successesOf(counts);
  const first = counts[0];
  return (
    first === undefined || counts.every((c) => c.impressions === first.impressions && successes(c) === successes(first))
  );
}

export function optimizeShares(counts: readonly CreativeCounts[], rand: () => number): number[] {
  const n = counts.length;
  if (n <= 1) return counts.map(() => 1);
  if (sameEvidence(counts)) return counts.map(() => 1 / n);
  const wins = new Array<number>(n).fill(0);
  const successes = successesOf(counts);
  const pooled =
    (counts.reduce((s, c) => s + successes(c), 0) + 1) / (counts.reduce((s, c) => s + c.impressions, 0) + 2);
  const posteriors = counts.map((c) => {
    const won = successes(c);
    return [pooled * PRIOR_IMPRESSIONS + won, (1 - pooled) * PRIOR_IMPRESSIONS + c.impressions - won] as const;
  });
  for (let d = 0; d < DRAWS; d++) {
    let best = 0;
    let bestDraw = -1;
    for (let i = 0; i < n; i++) {
      const [a, b] = posteriors[i] as readonly [number, number];
      const draw = beta(a, b, rand);
      if (draw > bestDraw) {
        bestDraw = draw;
        best = i;
      }
    }
    wins[best] = (wins[best] as number) + 1;
  }
  return wins.map((w) => EXPLORATION_FLOOR / n + (1 - EXPLORATION_FLOOR) * (w / DRAWS));
}

/** The traffic share of each creative (same order as `counts`), summing to 1. */
export function rotationShares(rotation: Rotation, counts: readonly CreativeCounts[], rand: () => number): number[] {
  const n = counts.length;
  switch (rotation) {
    case 'optimize':
      return optimizeShares(counts, rand);
    case 'even':
      return counts.map(() => 1 / n);
    case 'weighted': {
      const total = counts.reduce((s, c) => s + c.weight, 0);
      // All weights zero: nothing to follow, so even.
      return counts.map((c) => (total > 0 ? c.weight / total : 1 / n));
    }
  }
}

/** Picks an index by cumulative shares, `r` uniform in [0, 1). */
export function pickByShares(shares: readonly number[], r: number): number {
  let acc = 0;
  for (let i = 0; i < shares.length; i++) {
    acc += shares[i] as number;
    if (r < acc) return i;
  }
  return shares.length - 1;
}
