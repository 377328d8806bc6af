import { budgetDay } from '@adnet/schemas/budget-day';
import { centsToNano } from '@adnet/schemas/money';
import { advertiserHoldKey, advertiserPendingKey, balanceKey, campaignPoolKey, ledgerKey } from '@adnet/schemas/redis-keys';
import type { Redis } from 'ioredis';
import type { BudgetGate } from '../auction/run-auction.ts';
import type { Candidate } from '../index/candidate.ts';
import { defineBudgetScripts } from './budget-scripts.ts';

/** The budget the bid path uses: take a bid's price, or give it back when the bid is not sent. */
export interface BidBudget extends BudgetGate {
  giveBack(c: Candidate, priceMicroCents: number): void;
}

/** An engine's local share of one pool. */
class Slice {
  local = 0;
  refilling = false;
  /** No refill before this time after Redis granted nothing. */
  dryUntil = 0;
  lastUse = 0;
}

export interface BudgetOptions {
  redis: Redis;
  engineId: string;
  sliceCents: number;
  now?: () => number;
  onError?: (err: unknown) => void;
}

const POOL_TTL_MS = 3 * 86_400_000;
const DRY_RETRY_MS = 250;
const IDLE_RELEASE_MS = 10_000;

/**
 * Budgets without a Redis round trip per bid: each engine holds small slices
 * of every campaign's daily budget and every advertiser's balance, reserved
 * atomically in Redis, and bids only from them. Spend (from win notices) is
 * batched and applied by `flush`. See README, "Budgets", for the overspend bound.
 */
export class BudgetSlices implements BidBudget {
  private readonly campaigns = new Map<string, Slice>();
  private readonly advertisers = new Map<number, Slice>();
  private readonly campaignSpend = new Map<string, Map<string, number>>();
  private readonly advertiserSpend = new Map<number, Map<string, number>>();
  private readonly sliceNano: number;
  private readonly now: () => number;

  constructor(private readonly opts: BudgetOptions) {
    defineBudgetScripts(opts.redis);
    this.sliceNano = centsToNano(opts.sliceCents);
    this.now = opts.now ?? Date.now;
  }

  /** Hot path: synchronous, local only. Takes the price of one impression (CPM micro-cents) from both pools. */
  tryTake(c: Candidate, priceMicroCents: number): boolean {
    const nano = priceMicroCents * 10;
    const now = this.now();
    const day = budgetDay(now);
    const campaignKey = campaignPoolKey(c.campaignId, day);
    const cs = this.slice(this.campaigns, campaignKey);
    const as = this.slice(this.advertisers, c.advertiserId);
    cs.lastUse = as.lastUse = now;
    const ok = cs.local >= nano && as.local >= nano;
    if (ok) {
      cs.local -= nano;
      as.local -= nano;
    }
    if (cs.local < this.sliceNano / 2) this.refillCampaign(cs, campaignKey, c.dailyBudgetCents, now);
    if (as.local < this.sliceNano / 2) this.refillAdvertiser(as, c.advertiserId, now);
    return ok;
  }

  giveBack(c: Candidate, priceMicroCents: number): void {
    const nano = priceMicroCents * 10;
    const cs = this.campaigns.get(campaignPoolKey(c.campaignId, budgetDay(this.now())));
    const as = this.advertisers.get(c.advertiserId);
    if (cs) cs.local += nano;
    if (as) as.local += nano;
  }

  /** Reserve slices ahead of traffic (after an index load) so the first bids need not wait. */
  prewarm(candidates: Iterable<Candidate>): void {
    const now = this.now();
    const day = budgetDay(now);
    for (const c of candidates) {
      const key = campaignPoolKey(c.campaignId, day);
      this.refillCampaign(this.slice(this.campaigns, key), key, c.dailyBudgetCents, now);
      this.refillAdvertiser(this.slice(this.advertisers, c.advertiserId), c.advertiserId, now);
    }
  }

  /** Records a charged win; `bidEngine` is the engine whose hold covered the bid. */
  recordSpend(campaignId: number, advertiserId: number, day: string, nano: number, bidEngine: string): void {
    add(this.campaignSpend, campaignPoolKey(campaignId, day), bidEngine, nano);
    add(this.advertiserSpend, advertiserId, bidEngine, nano);
  }

  /** Applies recorded spend to Redis and returns idle holds. Called on a timer and at shutdown. */
  async flush(): Promise<void> {
    const redis = this.opts.redis;
    const campaignSpend = [...this.campaignSpend];
    const advertiserSpend = [...this.advertiserSpend];
    this.campaignSpend.clear();
    this.advertiserSpend.clear();
    const time = new Date(this.now()).toISOString();
    await Promise.all([
      ...campaignSpend.map(([key, byEngine]) => redis.budSpendCampaign(1, key, sum(byEngine), POOL_TTL_MS, ...pairs(byEngine))),
      ...advertiserSpend.map(([adv, byEngine]) =>
        redis.budSpendAdvertiser(4, advertiserHoldKey(adv), balanceKey(adv), advertiserPendingKey(adv), ledgerKey(adv), sum(byEngine), 'ad spend', time, ...pairs(byEngine)),
      ),
    ]);
    await this.releaseIdle();
  }

  /** Gives every hold back (shutdown), so other engines can use the budget at once. */
  async releaseAll(): Promise<void> {
    await this.releaseIdle(Infinity);
  }

  private async releaseIdle(idleMs = IDLE_RELEASE_MS): Promise<void> {
    const now = this.now();
    const cutoff = idleMs === Infinity ? Infinity : now - idleMs;
    const jobs: Promise<unknown>[] = [];
    for (const [key, s] of this.campaigns) {
      if (s.lastUse < cutoff && !s.refilling) {
        this.campaigns.delete(key);
        jobs.push(this.opts.redis.budReserveCampaign(1, key, this.opts.engineId, 0, 0, 0, POOL_TTL_MS));
      }
    }
    for (const [adv, s] of this.advertisers) {
      if (s.lastUse < cutoff && !s.refilling) {
        this.advertisers.delete(adv);
        jobs.push(this.opts.redis.budReserveAdvertiser(3, advertiserHoldKey(adv), balanceKey(adv), advertiserPendingKey(adv), this.opts.engineId, 0, 0));
      }
    }
    await Promise.all(jobs);
  }

  private slice<K>(map: Map<K, Slice>, key: K): Slice {
    let s = map.get(key);
    if (!s) map.set(key, (s = new Slice()));
    return s;
  }

  private refillCampaign(s: Slice, key: string, dailyBudgetCents: number, now: number): void {
    if (s.refilling || now < s.dryUntil) return;
    s.refilling = true;
    const keep = s.local;
    this.opts.redis
      .budReserveCampaign(1, key, this.opts.engineId, this.sliceNano, keep, centsToNano(dailyBudgetCents), POOL_TTL_MS)
      .then((grant) => this.granted(s, Number(grant)), (err: unknown) => this.failed(s, err));
  }

  private refillAdvertiser(s: Slice, adv: number, now: number): void {
    if (s.refilling || now < s.dryUntil) return;
    s.refilling = true;
    this.opts.redis
      .budReserveAdvertiser(3, advertiserHoldKey(adv), balanceKey(adv), advertiserPendingKey(adv), this.opts.engineId, this.sliceNano, s.local)
      .then((grant) => this.granted(s, Number(grant)), (err: unknown) => this.failed(s, err));
  }

  private granted(s: Slice, grant: number): void {
    s.refilling = false;
    s.local += grant;
    if (grant === 0) s.dryUntil = this.now() + DRY_RETRY_MS;
  }

  private failed(s: Slice, err: unknown): void {
    s.refilling = false;
    s.dryUntil = this.now() + DRY_RETRY_MS;
    this.opts.onError?.(err);
  }
}

function add<K>(map: Map<K, Map<string, number>>, key: K, engine: string, nano: number): void {
  let byEngine = map.get(key);
  if (!byEngine) map.set(key, (byEngine = new Map<string, number>()));
  byEngine.set(engine, (byEngine.get(engine) ?? 0) + nano);
}

const sum = (m: Map<string, number>): number => [...m.values()].reduce((a, b) => a + b, 0);
const pairs = (m: Map<string, number>): (string | number)[] => [...m].flat();
