/**
 * Even pacing: how much of a campaign's eligible traffic it bids on, so that its daily budget lasts
 * the day. Plain functions over numbers, run every PACING_TICK_MS by each engine from the campaign's
 * spend as every engine sees it (pacing-state.ts), and by the simulation test over a compressed day.
 *
 * The controller is throttling with a multiplicative (log-domain proportional) update, the scheme of
 * Agarwal et al., "Budget pacing for targeted online advertisements at LinkedIn" (KDD 2014): each tick
 * it compares what was spent since the last tick with what spreading the remaining budget evenly
 * over the remaining day allows for that time, and scales the participation rate by the ratio,
 * damped and bounded per tick. A campaign that cannot spend its even share anyway (too little
 * traffic) goes to rate 1 and takes what there is; the remaining budget is then spread over the
 * remaining hours, so a quiet morning is made up later, never all at once.
 */
export interface PacingState {
  /** Share of eligible auctions the campaign enters, (0, 1]. */
  rate: number;
  /** The campaign's spend today (nano-dollars) at the last tick, and when (ms since the epoch). */
  spentAt: number;
  lastSpent: number;
}

/** Lowest participation rate: a campaign is never shut out completely (its spend would stop telling us anything). */
export const MIN_RATE = 0.0001;
/** Largest factor one tick may change the rate by, up or down. */
const MAX_STEP = 2;
/** How much of the measured error one tick corrects (log domain). */
const GAIN = 0.5;

/** The campaign starts (or the day starts) at full rate: the first ticks find the level. */
export const initialPacing = (now: number, spent: number): PacingState => ({ rate: 1, spentAt: now, lastSpent: spent });

/** How long a campaign may serve between two instants (ms): its schedule's hours only. */
export type ServingTime = (from: number, to: number) => number;
/** A campaign without a schedule serves all the time. */
export const alwaysServing: ServingTime = (from, to) => Math.max(0, to - from);

/** What one step reads: the time now, the campaign's spend now, its daily budget, and when its budget day ends. */
export interface PacingStep {
  /** ms since the epoch. */
  now: number;
  /** nano-dollars. */
  spent: number;
  /** nano-dollars. */
  budget: number;
  /** ms since the epoch. */
  dayEnd: number;
  /** The campaign's serving time; all the time when absent. */
  serving?: ServingTime;
}

/**
 * The next state from the spend now. `dayEnd` is when the budget day ends (ms); `budget` and `spent`
 * in nano-dollars. `serving` measures the campaign's serving time: the even share is the remaining
 * budget over the serving time left today, so a dayparted campaign aims to spend its budget across
 * its own hours, not across hours in which it does not bid.
 */
export function nextPacing(s: PacingState, step: PacingStep): PacingState {
  if (step.now - s.spentAt <= 0) return s;
  return { rate: nextRate(s, step), spentAt: step.now, lastSpent: step.spent };
}

/**
 * `nextPacing` into `s` itself: the pacer steps every campaign every tick, and a new state object for each
 * of 100 000 campaigns was garbage the young-generation collections copied while the tick ran.
 */
export function stepPacing(s: PacingState, step: PacingStep): void {
  if (step.now - s.spentAt <= 0) return;
  s.rate = nextRate(s, step);
  s.spentAt = step.now;
  s.lastSpent = step.spent;
}

/**
 * Whether a step without new spend leaves `s` as it is but for its time, at any time and with any schedule: rate 1
 * under the budget (doubling stops at 1, and out of its hours the rate waits), MIN_RATE at or over it (nothing
 * left to spread). The pacer steps such controllers all at once instead of one by one.
 */
export const atRest = (s: PacingState, budget: number): boolean =>
  (s.rate === 1 && s.lastSpent < budget) || (s.rate === MIN_RATE && s.lastSpent >= budget);

function nextRate(s: PacingState, { now, spent, budget, dayEnd, serving = alwaysServing }: PacingStep): number {
  const remainingBefore = Math.max(0, budget - s.lastSpent);
  const servingLeft = serving(s.spentAt, dayEnd);
  const served = serving(s.spentAt, Math.min(now, dayEnd));
  const actual = Math.max(0, spent - s.lastSpent);
  // Out of its hours the campaign does not bid: nothing was learnt, and the rate waits for its hours.
  if (served <= 0 && actual <= 0 && spent < budget) return s.rate;
  // The even share of the remaining budget for the serving time since the last tick.
  const allowed = servingLeft > 0 ? (remainingBefore * served) / servingLeft : remainingBefore;
  let rate: number;
  if (allowed <= 0 || spent >= budget) rate = MIN_RATE;
  else if (actual <= 0) rate = s.rate * MAX_STEP;
  else {
    const ratio = Math.min(MAX_STEP, Math.max(1 / MAX_STEP, Math.pow(allowed / actual, GAIN)));
    rate = s.rate * ratio;
  }
  return Math.min(1, Math.max(MIN_RATE, rate));
}
