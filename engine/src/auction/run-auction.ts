import type { NoBidReason } from '@adnet/schemas/events';
import type { Candidate } from '../index/candidate.ts';
import { byExchangeRank, byRank } from '../index/rank.ts';
import type { CandidateFilter } from './filter.ts';
import type { BudgetGate, CreativePicker } from './ports.ts';
import { clearingPrice } from './price.ts';
import { adjustedMicroCents } from '@adnet/schemas/source-lists';
import { multiplierFor } from '../index/source-controls.ts';
import type { ImpContext } from './request-context.ts';

export type ImpOutcome =
  | {
      won: true;
      winner: Candidate;
      priceMicroCents: number;
      secondMicroCents: number;
      /** The winner's bid adjustment for this impression, in thousandths (1000: none). */
      multiplierMilli: number;
    }
  | { won: false; reason: NoBidReason };

/** The bid adjustment a candidate gets on this impression, in thousandths (index/source-controls.ts). */
const multiplierOf = (c: Candidate, ctx: ImpContext): number =>
  c.adjust === null ? 1000 : multiplierFor(c.adjust, ctx.zone?.zone.subid, ctx.inventory.siteId, ctx.country);

interface Held {
  c: Candidate;
  score: number;
  milli: number;
}

/** (score, campaign, creative) order, best first: the order the walk hands candidates out in. */
const before = (scoreA: number, a: Candidate, scoreB: number, b: Candidate): boolean =>
  scoreA !== scoreB ? scoreA > scoreB : a.campaignId !== b.campaignId ? a.campaignId < b.campaignId : a.creativeId < b.creativeId;

/**
 * The auction for one impression over lists that are each already ranked
 * (see the index): a k-way merge walks candidates best first, so a typical
 * auction looks at a handful of candidates, not thousands. A candidate's score
 * is its eCPM times its campaign's bid adjustment for this impression; the
 * lists rank by the highest score a candidate can get (Candidate.rankMicroCents),
 * so an adjusted candidate is re-scored when the merge reaches it and held back
 * until nothing left in the lists can outscore it: candidates come out in score
 * order, and unadjusted ones cost nothing more. Filters
 * drop candidates; the first survivor's campaign wins if its budget can take
 * the (adjusted) price, else the next campaign is tried; the runner-up from another
 * campaign sets the price. Which of the winning campaign's surviving creatives
 * serves is the rotation's choice (`picker`). Scoring below the floor ends the walk, since everything after scores
 * lower. The no-bid reason is the filter that removed the most candidates.
 */
export function runImpAuction(
  lists: readonly (readonly Candidate[])[],
  ctx: ImpContext,
  filters: readonly CandidateFilter[],
  budget: BudgetGate,
  picker: CreativePicker,
  /** The lists are in exchange order (index candidateListsFor): the impression names no zone or site of ours. */
  exchange = false,
): ImpOutcome {
  const order = exchange ? byExchangeRank : byRank;
  const pos = new Array<number>(lists.length).fill(0);
  let total = 0;
  for (const l of lists) total += l.length;
  if (total === 0) return { won: false, reason: 'no_candidates' };
  const rejected = new Array<number>(filters.length + 1).fill(0); // last slot: below floor
  let consumed = 0;
  let exhausted = false;

  // Adjusted candidates already taken from the lists and re-scored, kept worst first so the best is
  // popped from the end; a binary search places each (there may be a few hundred under dense adjustments).
  const held: Held[] = [];
  let outScore = 0;
  let outMilli = 1000;
  // A campaign's creatives sit next to each other in a list: its multiplier is looked up once for them.
  let lastCampaign = -1;
  let lastMilli = 1000;
  const nextScored = (): Candidate | undefined => {
    for (;;) {
      let best = -1;
      let head: Candidate | undefined;
      for (let k = 0; k < lists.length; k++) {
        const c = (lists[k] as readonly Candidate[])[pos[k] as number];
        if (c && (head === undefined || order(c, head) < 0)) {
          best = k;
          head = c;
        }
      }
      const top = held.length > 0 ? (held[held.length - 1] as Held) : undefined;
      if (top !== undefined && (head === undefined || before(top.score, top.c, exchange ? head.exchangeRankMicroCents : head.rankMicroCents, head))) {
        held.pop();
        outScore = top.score;
        outMilli = top.milli;
        return top.c;
      }
      if (head === undefined) return undefined;
      pos[best] = (pos[best] as number) + 1;
      if (head.adjust === null) {
        outScore = head.ecpmMicroCents;
        outMilli = 1000;
        return head;
      }
      if (head.campaignId !== lastCampaign) {
        lastCampaign = head.campaignId;
        lastMilli = multiplierOf(head, ctx);
      }
      if (exchange && head.exchangeExact) {
        // Its rank is its score: nothing left can outscore it, and nothing held does (checked above).
        outScore = head.exchangeRankMicroCents;
        outMilli = lastMilli;
        return head;
      }
      const entry: Held = { c: head, score: adjustedMicroCents(head.ecpmMicroCents, lastMilli), milli: lastMilli };
      let lo = 0;
      let hi = held.length;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        const m = held[mid] as Held;
        if (before(m.score, m.c, entry.score, entry.c)) hi = mid;
        else lo = mid + 1;
      }
      held.splice(lo, 0, entry);
    }
  };
  const survivors: Candidate[] = [];
  const survivorScore: number[] = [];
  const survivorMilli: number[] = [];
  const pull = (): Candidate | undefined => {
    while (!exhausted) {
      const c = nextScored();
      if (!c) break;
      consumed++;
      if (outScore < ctx.floorMicroCents) {
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
        survivorScore.push(outScore);
        survivorMilli.push(outMilli);
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
    // A campaign's creatives rank next to each other (one eCPM, one adjustment) and do not compete on price with each other.
    let second = 0;
    let j = i + 1;
    for (; ; j++) {
      const other = survivors[j] ?? pull();
      if (!other) break;
      if (other.campaignId !== first.campaignId) {
        second = survivorScore[j] as number;
        break;
      }
    }
    const winner = j - i > 1 ? picker.pick(survivors.slice(i, j)) : first;
    const price = clearingPrice(survivorScore[i] as number, second, ctx.floorMicroCents);
    // The hold is the adjusted price: the budget sees what the impression (or, for CPC, its bid) may cost.
    if (budget.tryTake(winner, price))
      return { won: true, winner, priceMicroCents: price, secondMicroCents: second, multiplierMilli: survivorMilli[i] as number };
    i = j;
  }
  if (survivors.length > 0) return { won: false, reason: 'budget' };
  let worst = 0;
  for (let i = 1; i < rejected.length; i++) if ((rejected[i] as number) > (rejected[worst] as number)) worst = i;
  return { won: false, reason: worst === filters.length ? 'below_floor' : (filters[worst] as CandidateFilter).name };
}
