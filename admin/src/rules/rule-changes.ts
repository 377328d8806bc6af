import { MULTIPLIER_MAX, MULTIPLIER_MIN, MULTIPLIER_PLACES } from '@adnet/schemas/source-lists';

const SCALE = 10 ** MULTIPLIER_PLACES;

/**
 * A bid multiplier moved by `pct` percent up (raise) or down (lower), kept within what an advertiser may set
 * (0.1-10, three places), so a rule never writes an adjustment the API would refuse.
 */
export function movedMultiplier(current: number, direction: 'raise' | 'lower', pct: number): number {
  const factor = direction === 'raise' ? 1 + pct / 100 : 1 - pct / 100;
  const next = Math.round(current * factor * SCALE) / SCALE;
  return Math.min(MULTIPLIER_MAX, Math.max(MULTIPLIER_MIN, next));
}

/**
 * A targeting list without `value`, where an empty list means every value of `all`: the list to store, or
 * undefined when nothing would be left (a campaign with nothing to target is no narrower, it is off) or
 * `value` is not targeted now.
 */
export function narrowedList<T extends string>(current: readonly T[], all: readonly T[], value: T): T[] | undefined {
  const from = current.length === 0 ? all : current;
  if (!from.includes(value)) return undefined;
  const next = from.filter((v) => v !== value);
  return next.length === 0 ? undefined : next;
}
