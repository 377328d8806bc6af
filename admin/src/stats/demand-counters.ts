import { demandDayKey } from '@adnet/schemas/demand';
import type { Redis } from '@adnet/runtime/redis-connect';
import { pipelineByKey } from '@adnet/runtime/redis-pipelines';
import type { StatsQuery, StatsRow } from '@adnet/schemas/stats';

/** The engines' per-partner auction counters (schemas/src/demand.ts) and the statistics field each becomes. */
const AUCTION_FIELDS = {
  requests: 'bid_requests',
  bids: 'bids',
  wins: 'wins',
  timeouts: 'timeouts',
  errors: 'errors',
} as const;
type AuctionField = (typeof AUCTION_FIELDS)[keyof typeof AUCTION_FIELDS];
export type AuctionCounts = Record<AuctionField, number>;
/** Per UTC day (`YYYY-MM-DD`), per partner id: its counters summed over engines. */
export type DailyCounters = ReadonlyMap<string, ReadonlyMap<number, AuctionCounts>>;

/**
 * Auction counters are kept per partner and UTC day only (Redis, not ClickHouse): they join admin
 * statistics grouped by `demand` and at most by `day`, in UTC. Any other grouping or time zone would ask
 * for a split they do not have, so those rows go without them rather than with wrong ones.
 */
export const takesAuctionCounters = (q: StatsQuery): boolean =>
  q.tz === 'UTC' && q.group_by.includes('demand') && q.group_by.every((d) => d === 'demand' || d === 'day');

/** Every UTC day of the query's range, in order. */
export function daysOf(q: StatsQuery): string[] {
  const out: string[] = [];
  for (let t = Date.parse(`${q.from}T00:00:00Z`); t <= Date.parse(`${q.to}T00:00:00Z`); t += 86_400_000)
    out.push(new Date(t).toISOString().slice(0, 10));
  return out;
}

/** One Redis hash of a partner's day (as the engines write it) as counts; absent fields are 0. */
export function auctionCounts(raw: Readonly<Record<string, string>>): AuctionCounts {
  const out = {} as AuctionCounts;
  for (const [counter, field] of Object.entries(AUCTION_FIELDS)) out[field] = Number(raw[counter] ?? 0) || 0;
  return out;
}

const add = (a: AuctionCounts, b: AuctionCounts): AuctionCounts => {
  const out = { ...a };
  for (const f of Object.values(AUCTION_FIELDS)) out[f] += b[f];
  return out;
};
const ZERO = auctionCounts({});
const EMPTY_ROW = {
  impressions: 0,
  viewable_impressions: 0,
  clicks: 0,
  invalid_clicks: 0,
  ctr: 0,
  spent_cents: 0,
  spent_nano: 0,
  conversions: 0,
  ecpa_cents: 0,
};

/**
 * The partner rows with their auction counters (summed over the range unless grouped by day), and a row
 * for each partner that was asked but bought nothing, so a partner that only bids, times out or fails is
 * seen too. `own` rows have none: our campaigns are not asked over HTTP. Sorted as the query sorts.
 */
export function withAuctionCounters(rows: readonly StatsRow[], q: StatsQuery, daily: DailyCounters): StatsRow[] {
  const byDay = q.group_by.includes('day');
  const counts = new Map<string, AuctionCounts>();
  for (const [day, partners] of daily) {
    for (const [id, c] of partners) {
      const key = `${byDay ? day : ''}|${id}`;
      counts.set(key, add(counts.get(key) ?? ZERO, c));
    }
  }
  const out: StatsRow[] = rows.map((r) => {
    if (r.demand === undefined || r.demand === 'own') return r;
    const key = `${r.date ?? ''}|${r.demand}`;
    const c = counts.get(key) ?? ZERO;
    counts.delete(key);
    return { ...r, ...c };
  });
  for (const [key, c] of counts) {
    if (Object.values(c).every((n) => n === 0)) continue;
    const [date = '', demand = ''] = key.split('|');
    out.push({ ...(byDay ? { date } : {}), demand, ...EMPTY_ROW, ...c });
  }
  return out.sort(
    (a, b) => (a.date ?? '').localeCompare(b.date ?? '') || (a.demand ?? '').localeCompare(b.demand ?? ''),
  );
}

/** The partners' counters of the query's days, read in one pipeline (one per key on a Redis Cluster). */
export async function readDailyCounters(
  redis: Redis,
  partnerIds: readonly number[],
  q: StatsQuery,
): Promise<DailyCounters> {
  const days = daysOf(q);
  const keys: string[] = [];
  for (const day of days) for (const id of partnerIds) keys.push(demandDayKey(id, day));
  const res = await pipelineByKey(redis, keys, (p, key) => p.hgetall(key));
  const out = new Map<string, Map<number, AuctionCounts>>();
  let i = 0;
  for (const day of days) {
    const m = new Map<number, AuctionCounts>();
    for (const id of partnerIds) {
      const [err, raw] = res[i++] ?? [null, {}];
      if (err) throw err;
      m.set(id, auctionCounts((raw ?? {}) as Record<string, string>));
    }
    out.set(day, m);
  }
  return out;
}
