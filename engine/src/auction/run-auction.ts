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
  scoreA !== scoreB
    ? scoreA > scoreB
    : a.campaignId !== b.campaignId
      ? a.campaignId < b.campaignId
      : a.creativeId < b.creativeId;

/**
 * The walk's state and its two steps, as one object: closures made per auction cost an allocation each,
 * and under tsx (esbuild's keepNames) a `name` defined on each as well (bench/results/ab-history.md, step 6).
 */
class Walk {
  readonly order: (a: Candidate, b: Candidate) => number;
  readonly pos: number[];
  /** Candidates each filter removed; the last slot: below the floor. */
  readonly rejected: number[];
  consumed = 0;
  exhausted = false;
  // Adjusted candidates already taken from the lists and re-scored, kept worst first so the best is
  // popped from the end; a binary search places each (there may be a few hundred under dense adjustments).
  readonly held: Held[] = [];
  outScore = 0;
  outMilli = 1000;
  // A campaign's creatives sit next to each other in a list: its multiplier is looked up once for them.
  lastCampaign = -1;
  lastMilli = 1000;
  readonly survivors: Candidate[] = [];
  readonly survivorScore: number[] = [];
  readonly survivorMilli: number[] = [];

  // eslint-disable-next-line @typescript-eslint/max-params -- hot path: one walk per auction, on every bid and /imp request
  constructor(
    readonly lists: readonly (readonly Candidate[])[],
    readonly ctx: ImpContext,
    readonly filters: readonly CandidateFilter[],
    readonly exchange: boolean,
    /** Candidates in all the lists. */
    readonly total: number,
  ) {
    this.order = exchange ? byExchangeRank : byRank;
    this.pos = new Array<number>(lists.length).fill(0);
    this.rejected = new Array<number>(filters.length + 1).fill(0);
  }

  nextScored(): Candidate | undefined {
    const { lists, pos, held, order, exchange } = this;
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
      if (
        top !== undefined &&
        (head === undefined ||
          before(top.score, top.c, exchange ? head.exchangeRankMicroCents : head.rankMicroCents, head))
      ) {
        held.pop();
        this.outScore = top.score;
        this.outMilli = top.milli;
        return top.c;
      }
      if (head === undefined) return undefined;
      pos[best] = (pos[best] as number) + 1;
      if (head.adjust === null) {
        this.outScore = head.ecpmMicroCents;
        this.outMilli = 1000;
        return head;
      }
      if (head.campaignId !== this.lastCampaign) {
        this.lastCampaign = head.campaignId;
        this.lastMilli = multiplierOf(head, this.ctx);
      }
      if (exchange && head.exchangeExact) {
        // Its rank is its score: nothing left can outscore it, and nothing held does (checked above).
        this.outScore = head.exchangeRankMicroCents;
        this.outMilli = this.lastMilli;
        return head;
      }
      const entry: Held = {
        c: head,
        score: adjustedMicroCents(head.ecpmMicroCents, this.lastMilli),
        milli: this.lastMilli,
      };
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
  }

  pull(): Candidate | undefined {
    const { filters, rejected } = this;
    while (!this.exhausted) {
      const c = this.nextScored();
      if (!c) break;
      this.consumed++;
      if (this.outScore < this.ctx.floorMicroCents) {
        rejected[filters.length] = (rejected[filters.length] as number) + (this.total - this.consumed + 1);
        this.exhausted = true;
        break;
      }
      let failed = -1;
      for (let i = 0; i < filters.length; i++) {
        if ((filters[i] as CandidateFilter).reject(c, this.ctx)) {
          failed = i;
          break;
        }
      }
      if (failed === -1) {
        this.survivors.push(c);
        this.survivorScore.push(this.outScore);
        this.survivorMilli.push(this.outMilli);
        return c;
      }
      rejected[failed] = (rejected[failed] as number) + 1;
    }
    this.exhausted = true;
    return undefined;
  }
}

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
// eslint-disable-next-line @typescript-eslint/max-params -- hot path: the auction itself, run on every bid and /imp request
export function runImpAuction(
  lists: readonly (readonly Candidate[])[],
  ctx: ImpContext,
  filters: readonly CandidateFilter[],
  budget: BudgetGate,
  picker: CreativePicker,
  /** The lists are in exchange order (index candidateListsFor): the impression names no zone or site of ours. */
  exchange = false,
): ImpOutcome {
  let total = 0;
  // Indexed: a for-of's iterator showed in the bid path's allocation profile.
  for (let i = 0; i < lists.length; i++) total += (lists[i] as readonly Candidate[]).length;
  if (total === 0) return { won: false, reason: 'no_candidates' };
  const w = new Walk(lists, ctx, filters, exchange, total);

  for (let i = 0; ;) {
    const first = w.survivors[i] ?? w.pull();
    if (!first) break;
    // A campaign's creatives rank next to each other (one eCPM, one adjustment) and do not compete on price with each other.
    let second = 0;
    let j = i + 1;
    for (; ; j++) {
      const other = w.survivors[j] ?? w.pull();
      if (!other) break;
      if (other.campaignId !== first.campaignId) {
        second = w.survivorScore[j] as number;
        break;
      }
    }
    const winner = j - i > 1 ? picker.pick(w.survivors.slice(i, j)) : first;
    const price = clearingPrice(w.survivorScore[i] as number, second, ctx.floorMicroCents);
    // The hold is the adjusted price: the budget sees what the impression (or, for CPC, its bid) may cost.
    if (budget.tryTake(winner, price))
      return {
        won: true,
        winner,
        priceMicroCents: price,
        secondMicroCents: second,
        multiplierMilli: w.survivorMilli[i] as number,
      };
    i = j;
  }
  if (w.survivors.length > 0) return { won: false, reason: 'budget' };
  const rejected = w.rejected;
  let worst = 0;
  for (let i = 1; i < rejected.length; i++) if ((rejected[i] as number) > (rejected[worst] as number)) worst = i;
  return { won: false, reason: worst === filters.length ? 'below_floor' : (filters[worst] as CandidateFilter).name };
}
