import type { NoBidReason } from '@adnet/schemas/events';
import type { Candidate } from '../index/candidate.ts';
import { byRank } from '../index/rank.ts';
import type { CandidateFilter } from './filter.ts';
import type { BudgetGate, CreativePicker } from './ports.ts';
import { clearingPrice } from './price.ts';
import type { ImpContext } from './request-context.ts';

export type ImpOutcome = { won: true; winner: Candidate; priceMicroCents: number; secondMicroCents: number } | { won: false; reason: NoBidReason };

/**
 * The auction for one impression over lists that are each already ranked
 * (eCPM descending, see the index): a k-way merge walks candidates best first,
 * so a typical auction looks at a handful of candidates, not thousands. Filters
 * drop candidates; the first survivor's campaign wins if its budget can take
 * the price, else the next campaign is tried; the runner-up from another
 * campaign sets the price. Which of the winning campaign's surviving creatives
 * serves is the rotation's choice (`picker`). Ranking below the floor ends the walk, since everything after ranks
 * lower. The no-bid reason is the filter that removed the most candidates.
 */
export function runImpAuction(
  lists: readonly (readonly Candidate[])[],
  ctx: ImpContext,
  filters: readonly CandidateFilter[],
  budget: BudgetGate,
  picker: CreativePicker,
): ImpOutcome {
  const pos = new Array<number>(lists.length).fill(0);
  let total = 0;
  for (const l of lists) total += l.length;
  if (total === 0) return { won: false, reason: 'no_candidates' };
  const rejected = new Array<number>(filters.length + 1).fill(0); // last slot: below floor
  let consumed = 0;
  let exhausted = false;

  const nextRanked = (): Candidate | undefined => {
    let best = -1;
    for (let k = 0; k < lists.length; k++) {
      const c = (lists[k] as readonly Candidate[])[pos[k] as number];
      if (c && (best === -1 || byRank(c, (lists[best] as readonly Candidate[])[pos[best] as number] as Candidate) < 0)) best = k;
    }
    if (best === -1) return undefined;
    return (lists[best] as readonly Candidate[])[(pos[best] as number)++];
  };
  const survivors: Candidate[] = [];
  const pull = (): Candidate | undefined => {
    while (!exhausted) {
      const c = nextRanked();
      if (!c) break;
      consumed++;
      if (c.ecpmMicroCents < ctx.floorMicroCents) {
        rejected[filters.length] = (rejected[filters.length] as number) + (total - consumed + 1);
        exhausted = true;
        break;
      }
      let failed = -1;
      for (let i = 0; i < filters.length; i++) {
        if ((filters[i] as CandidateFilter).reject(c, ctx)) {
          failed = i;
          break;
        }
      }
      if (failed === -1) {
        survivors.push(c);
        return c;
      }
      rejected[failed] = (rejected[failed] as number) + 1;
    }
    exhausted = true;
    return undefined;
  };

  for (let i = 0; ;) {
    const first = survivors[i] ?? pull();
    if (!first) break;
    // A campaign's creatives rank next to each other and do not compete on price with each other.
    let second = 0;
    let j = i + 1;
    for (; ; j++) {
      const other = survivors[j] ?? pull();
      if (!other) break;
      if (other.campaignId !== first.campaignId) {
        second = other.ecpmMicroCents;
        break;
      }
    }
    const winner = j - i > 1 ? picker.pick(survivors.slice(i, j)) : first;
    const price = clearingPrice(winner.ecpmMicroCents, second, ctx.floorMicroCents);
    if (budget.tryTake(winner, price)) return { won: true, winner, priceMicroCents: price, secondMicroCents: second };
    i = j;
  }
  if (survivors.length > 0) return { won: false, reason: 'budget' };
  let worst = 0;
  for (let i = 1; i < rejected.length; i++) if ((rejected[i] as number) > (rejected[worst] as number)) worst = i;
  return { won: false, reason: worst === filters.length ? 'below_floor' : (filters[worst] as CandidateFilter).name };
}
