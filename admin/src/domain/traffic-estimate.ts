import { centsToNano, microCentsToUsd } from '@adnet/schemas/money';
import type { Estimate } from '@adnet/schemas/estimate';

// The traffic estimate's arithmetic (docs/events-and-stats.md, "Traffic estimate"), over the matching traffic
// of the window as the statistics store sums it (stats/estimate-query.ts): how many requests, and at which
// prices the sold ones were won. All money in integers: CPM prices in micro-cents, spend in nano-dollars.

/** One price bucket of sold requests: how many, and the sum of their winning CPMs (micro-cents). */
export interface SoldBucket {
  sold: number;
  soldMicroCents: number;
}

/** The matching traffic of the window. */
export interface MatchedTraffic {
  windowDays: number;
  /** Requests nothing of ours or a partner's filled: any bid takes them, at the one-cent clearing price. */
  unsold: number;
  /** Sold requests by price, any order. */
  buckets: readonly SoldBucket[];
}

export interface EstimateBid {
  bidType: 'cpm' | 'cpc';
  /** CPM, or CPC per click, in micro-cents. */
  bidMicroCents: number;
  dailyBudgetCents: number;
  /** The format's predicted CTR (CTR_PRIOR), which turns a CPC bid into the eCPM the auction ranks it by. */
  ctr: number;
}

/** One cent, the second-price increment (engine/src/auction/price.ts): what a lone bidder pays with no floor. */
const INCREMENT_MICRO_CENTS = 1_000;
/** The share of winning prices the minimum bid beats. */
const MIN_BID_SHARE = 0.05;
/** The share of winning prices the recommended bid beats. */
const RECOMMENDED_SHARE = 0.75;

/** A bucket's price: the mean of its winning prices (buckets are 2 % wide, so the mean is within 1 % of each). */
interface Priced {
  price: number;
  sold: number;
}

/** What a bid of eCPM `ecpm` would win over the window, and what it would cost (nano-dollars). */
interface Take {
  wins: number;
  costNano: number;
}

/**
 * A bid wins a sold request when its eCPM beats the price that won it, and pays second price plus one cent
 * (never above its own eCPM); unsold requests it wins at one cent. A CPC campaign pays its bid per click,
 * `ecpm / 1000` per impression on average whatever it beat.
 */
function takeAt(priced: readonly Priced[], unsold: number, ecpm: number, bidType: EstimateBid['bidType']): Take {
  let wins = unsold;
  let costMicroCentsCpm = unsold * Math.min(ecpm, INCREMENT_MICRO_CENTS);
  for (const b of priced) {
    if (b.price >= ecpm) break;
    wins += b.sold;
    costMicroCentsCpm += b.sold * Math.min(ecpm, b.price + INCREMENT_MICRO_CENTS);
  }
  // A CPM in micro-cents is that many nano-dollars x 10 per impression (cpmMicroCentsToNanoPerImpression).
  const costNano = (bidType === 'cpm' ? costMicroCentsCpm : wins * ecpm) * 10;
  return { wins, costNano };
}

interface Daily {
  impressions: number;
  spendNano: number;
}

/** A day's share of a take, within the daily budget: past it, even pacing takes the same share of every win. */
function withinBudget(take: Take, days: number, budgetNano: number): Daily {
  const impressions = take.wins / days;
  const spend = take.costNano / days;
  if (spend <= budgetNano) return { impressions, spendNano: spend };
  return { impressions: (impressions * budgetNano) / spend, spendNano: budgetNano };
}

const ecpmOf = (bid: Pick<EstimateBid, 'bidType' | 'bidMicroCents' | 'ctr'>, microCents: number): number =>
  bid.bidType === 'cpm' ? microCents : Math.floor(microCents * bid.ctr * 1000);

/** The bid (in the bid type's unit, micro-cents) whose eCPM is at least `ecpm`, never below the lowest bid. */
const bidFor = (bid: Pick<EstimateBid, 'bidType' | 'ctr'>, ecpm: number): number =>
  Math.max(1, bid.bidType === 'cpm' ? ecpm : Math.ceil(ecpm / (bid.ctr * 1000)));

/** The price under which `share` of the sold requests were won (priced ascending); undefined with none sold. */
function priceAt(priced: readonly Priced[], share: number): number | undefined {
  const total = priced.reduce((n, b) => n + b.sold, 0);
  if (total === 0) return undefined;
  let seen = 0;
  for (const b of priced) {
    seen += b.sold;
    if (seen >= share * total) return b.price;
  }
  return priced.at(-1)?.price;
}

const round = (n: number, places: number): number => Math.round(n * 10 ** places) / 10 ** places;
const usd = (microCents: number | undefined): number | null =>
  microCents === undefined ? null : microCentsToUsd(Math.round(microCents));

/**
 * The estimate of one bid over the matching traffic. A larger budget never buys fewer impressions, nor a
 * higher bid a smaller share of the requests. While the budget does not bind, a higher bid never buys fewer
 * impressions either; once it binds, a higher bid buys dearer impressions and fewer of them, as the auction
 * does (the replay test, tests/e2e/estimate-replay.test.ts, holds the estimate to it), and the estimate says
 * so rather than promise what the engine would not deliver.
 */
export function estimateTraffic(traffic: MatchedTraffic, bid: EstimateBid): Estimate {
  const priced = traffic.buckets
    .filter((b) => b.sold > 0)
    .map((b) => ({ price: Math.floor(b.soldMicroCents / b.sold), sold: b.sold }))
    .sort((a, b) => a.price - b.price);
  const days = traffic.windowDays;
  const requests = traffic.unsold + priced.reduce((n, b) => n + b.sold, 0);
  const ecpm = ecpmOf(bid, bid.bidMicroCents);
  const budgetNano = centsToNano(bid.dailyBudgetCents);
  const own = takeAt(priced, traffic.unsold, ecpm, bid.bidType);

  const day = withinBudget(own, days, budgetNano);

  const minEcpm = priceAt(priced, MIN_BID_SHARE);
  const recommendedEcpm = priceAt(priced, RECOMMENDED_SHARE);
  return {
    window_days: days,
    requests_per_day: round(requests / days, 1),
    impressions_per_day: round(day.impressions, 1),
    win_rate: requests === 0 ? 0 : round(own.wins / requests, 4),
    spend_per_day_usd: round(day.spendNano / 1e9, 2),
    cpm_percentiles_usd: {
      p25: usd(priceAt(priced, 0.25)),
      p50: usd(priceAt(priced, 0.5)),
      p75: usd(priceAt(priced, 0.75)),
      p90: usd(priceAt(priced, 0.9)),
    },
    min_bid_usd: microCentsToUsd(bidFor(bid, minEcpm === undefined ? 1 : minEcpm + 1)),
    recommended_bid_usd: microCentsToUsd(bidFor(bid, recommendedEcpm === undefined ? 1 : recommendedEcpm + 1)),
  };
}
