import type { Candidate } from '../index/candidate.ts';
import type { Filter, ImpContext } from './filters.ts';

/** Takes budget for a bid; false when the campaign or advertiser has none left here. */
export interface BudgetGate {
  tryTake(c: Candidate, priceMicroCents: number): boolean;
}

export type ImpOutcome =
  | { won: true; winner: Candidate; priceMicroCents: number; secondMicroCents: number }
  | { won: false; reason: string };

/** One cent, in micro-cents: the increment of the second-price rule. */
export const PRICE_INCREMENT_MICRO_CENTS = 1_000;

/**
 * Second price plus one cent (CPM): the winner pays one cent more than the
 * runner-up's eCPM, never less than the floor and never more than its own
 * eCPM. With no runner-up it pays the floor (or one cent when there is none).
 */
export function clearingPrice(winnerEcpm: number, secondEcpm: number, floor: number): number {
  return Math.min(winnerEcpm, Math.max(floor, secondEcpm + PRICE_INCREMENT_MICRO_CENTS));
}

/**
 * The auction for one impression: filter, rank by eCPM, then walk down the
 * ranking until a candidate's budget can take the price. The no-bid reason is
 * the filter that removed the most candidates.
 */
export function runImpAuction(candidates: readonly Candidate[], ctx: ImpContext, filters: readonly Filter[], budget: BudgetGate): ImpOutcome {
  if (candidates.length === 0) return { won: false, reason: 'no_candidates' };
  const survivors: Candidate[] = [];
  const rejected = new Array<number>(filters.length).fill(0);
  outer: for (const c of candidates) {
    for (let i = 0; i < filters.length; i++) {
      if ((filters[i] as Filter).reject(c, ctx)) {
        rejected[i] = (rejected[i] ?? 0) + 1;
        continue outer;
      }
    }
    survivors.push(c);
  }
  if (survivors.length === 0) {
    let worst = 0;
    for (let i = 1; i < rejected.length; i++) if ((rejected[i] ?? 0) > (rejected[worst] ?? 0)) worst = i;
    return { won: false, reason: filters[worst]?.name ?? 'filtered' };
  }
  // Ties go to the lower creative id so that every engine picks the same winner.
  survivors.sort((a, b) => b.ecpmMicroCents - a.ecpmMicroCents || a.creativeId - b.creativeId);
  for (let i = 0; i < survivors.length; i++) {
    const winner = survivors[i] as Candidate;
    // Candidates of the same campaign do not compete on price with each other.
    let second = 0;
    for (let j = i + 1; j < survivors.length; j++) {
      const other = survivors[j] as Candidate;
      if (other.campaignId !== winner.campaignId) {
        second = other.ecpmMicroCents;
        break;
      }
    }
    const price = clearingPrice(winner.ecpmMicroCents, second, ctx.floorMicroCents);
    if (budget.tryTake(winner, price)) return { won: true, winner, priceMicroCents: price, secondMicroCents: second };
  }
  return { won: false, reason: 'budget' };
}
