import { budgetDay } from '@adnet/schemas/budget-day';
import { centsToNano, cpcMicroCentsToNano } from '@adnet/schemas/money';
import {
  advertiserHoldKey,
  advertiserPendingKey,
  balanceKey,
  campaignOfPool,
  campaignPoolKey,
  ledgerKey,
  totalKeyOfPool,
} from '@adnet/schemas/redis-keys';
import { slices } from '@adnet/runtime/slices';
import type { Redis } from 'ioredis';
import type { BidBudget, BudgetCheck, SpendRecorder } from '../auction/ports.ts';
import { BID_HOLD_MS } from '../auction/ticket-age.ts';
import type { Candidate } from '../index/candidate.ts';
import type { MovedMarks } from '../store/moved.ts';
import { defineBudgetScripts } from './budget-scripts.ts';

/**
 * An engine's local share of one pool. `local` is spendable; `outstanding`
 * is what bids took that no win has settled yet: it stays in this engine's
 * Redis hold (so spend + holds never exceed the limit while wins are in
 * flight) until it is older than OUTSTANDING_MS, when a lost bid's money goes
 * back to the pool at the next re-base. Exported for bench/src/ab-slices.ts.
 */
export class Slice {
  local = 0;
  outstanding = 0;
  /** The hold this engine set in Redis at its last re-base. */
  lastHold = 0;
  /**
   * Outstanding bids, oldest first, as two arrays of plain numbers (V8 keeps them unboxed): every bid of the
   * last minute is here, two per bid (campaign and advertiser), and an object each was what the young
   * collections copied and promoted most at 15 000 bids/s (1.8 million of them live).
   */
  private readonly takenAt: number[] = [];
  private readonly takenNano: number[] = [];
  refilling = false;
  /** No refill before this time after Redis granted nothing. */
  dryUntil = 0;
  lastUse = 0;
  /** Last reserved by a CPC campaign's rule (room for one click), not beside every hold as for CPM. */
  cpc = false;

  take(nano: number, now: number): void {
    this.local -= nano;
    this.outstanding += nano;
    this.takenAt.push(now);
    this.takenNano.push(nano);
  }

  untake(nano: number): void {
    this.local += nano;
    this.drop(nano);
  }

  /** Wins settled `nano` of the outstanding bids (oldest first: only the total matters). */
  settle(nano: number): void {
    this.drop(nano);
  }

  /** Bids older than OUTSTANDING_MS are taken as lost; their money returns to the pool at the next re-base. */
  expire(now: number): void {
    const at = this.takenAt;
    let n = 0;
    while (n < at.length && (at[n] as number) < now - OUTSTANDING_MS) this.outstanding -= this.takenNano[n++] as number;
    this.forget(n);
  }

  private drop(nano: number): void {
    let left = Math.min(nano, this.outstanding);
    this.outstanding -= left;
    const nanos = this.takenNano;
    let n = 0;
    while (left > 0 && n < nanos.length) {
      const bid = nanos[n] as number;
      if (bid <= left) {
        left -= bid;
        n++;
      } else {
        nanos[n] = bid - left;
        left = 0;
      }
    }
    this.forget(n);
  }

  /**
   * The oldest `n` bids leave in one splice: a shift each was quadratic once a slice held tens of thousands of
   * bids (one campaign winning a busy zone; a re-base settling its beacons blocked the loop for seconds).
   */
  private forget(n: number): void {
    if (n === 0) return;
    this.takenAt.splice(0, n);
    this.takenNano.splice(0, n);
  }
}

export interface BudgetOptions {
  redis: Redis;
  engineId: string;
  sliceCents: number;
  now?: () => number;
  onError?: (err: unknown) => void;
  /** Each re-base against Redis: granted money, found the pool dry, or failed. */
  onRebase?: (pool: 'campaign' | 'advertiser', result: 'granted' | 'dry' | 'error') => void;
  /** Where the campaigns whose spend this engine applied are marked for the pacers, once per flush. */
  spentMarks?: MovedMarks;
}

const POOL_TTL_MS = 3 * 86_400_000;
const DRY_RETRY_MS = 250;
/** A pool this engine has not bid from for this long gives its unused slice back (the next bid re-reserves). */
const IDLE_RELEASE_MS = 5 * 60_000;
/** How long a bid's price stays held waiting for its win notice (or beacon, or pixel). */
const OUTSTANDING_MS = BID_HOLD_MS;
/**
 * The idle scan walks every pool (one per campaign the index serves): at 100 000 campaigns one pass held the
 * event loop for 4-8 ms every flush (200 ms). It runs at most this often, and lets requests in every SLICE_MS.
 */
const IDLE_SCAN_MS = 10_000;
const SLICE_MS = 2;
/** Pools looked at between two clock checks of the idle scan. */
const SCAN_STEP = 256;
/** Idle pools' releases in flight at once (`releaseIdle`). */
const RELEASE_WINDOW = 64;

/**
 * Budgets without a Redis round trip per bid: each engine holds small slices
 * of every campaign's daily budget and every advertiser's balance, reserved
 * atomically in Redis, and bids only from them. Spend (from win notices) is
 * batched and applied by `flush`. See docs/openrtb.md, "Budgets", for the overspend bound.
 */
export class BudgetSlices implements BidBudget, BudgetCheck, SpendRecorder {
  private readonly campaigns = new Map<string, Slice>();
  private readonly advertisers = new Map<number, Slice>();
  private readonly campaignSpend = new Map<string, Map<string, number>>();
  private readonly advertiserSpend = new Map<number, Map<string, number>>();
  /** Spend batches sent but not confirmed, by pool: each resends itself with its own sequence number. */
  private readonly unconfirmed = new Map<string, () => Promise<unknown>>();
  private spendSeq = 0;
  private flushing: Promise<void> | undefined;
  private lastIdleScan = -Infinity;
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
      cs.take(nano, now);
      as.take(nano, now);
    }
    if (cs.local < this.sliceNano / 2) this.refillCampaign(cs, campaignKey, c, now);
    if (as.local < this.sliceNano / 2) this.refillAdvertiser(as, c.advertiserId, now);
    return ok;
  }

  /**
   * Whether `tryTake` would take the price now, with no take, no refill and no mark of use: the live preview's
   * gate. Slices are reserved ahead of traffic (`prewarm`), so a campaign with money has some here.
   */
  canTake(c: Candidate, priceMicroCents: number): boolean {
    const nano = priceMicroCents * 10;
    const cs = this.campaigns.get(campaignPoolKey(c.campaignId, budgetDay(this.now())));
    const as = this.advertisers.get(c.advertiserId);
    return cs !== undefined && as !== undefined && cs.local >= nano && as.local >= nano;
  }

  giveBack(c: Candidate, priceMicroCents: number): void {
    const nano = priceMicroCents * 10;
    const cs = this.campaigns.get(campaignPoolKey(c.campaignId, budgetDay(this.now())));
    const as = this.advertisers.get(c.advertiserId);
    cs?.untake(nano);
    as?.untake(nano);
  }

  /** Reserve slices ahead of traffic (after an index load) so the first bids need not wait. */
  prewarm(candidates: Iterable<Candidate>): void {
    const now = this.now();
    const day = budgetDay(now);
    // Only slices running low: an index rebuild must not re-reserve every pool.
    for (const c of candidates) {
      const key = campaignPoolKey(c.campaignId, day);
      const cs = this.slice(this.campaigns, key);
      const as = this.slice(this.advertisers, c.advertiserId);
      // Counts as use: a slice reserved ahead of traffic must not be handed back as idle at once.
      cs.lastUse = Math.max(cs.lastUse, now);
      as.lastUse = Math.max(as.lastUse, now);
      // A campaign switched from CPC to CPM must not spend a slice granted beside the holds rather than within
      // them (its impressions would be charged past the budget): it gives the slice back and reserves again.
      // Every index change calls this at once, before any bid sees the new bid type.
      if (cs.cpc && c.bidType !== 'cpc') {
        cs.local = 0;
        cs.cpc = false;
      }
      if (cs.local < this.sliceNano / 2) this.refillCampaign(cs, key, c, now);
      if (as.local < this.sliceNano / 2) this.refillAdvertiser(as, c.advertiserId, now);
    }
  }

  /** Records a charged win; `bidEngine` is the engine whose hold covered the bid. */
  // eslint-disable-next-line @typescript-eslint/max-params -- hot path: recorded for every charged win
  recordSpend(campaignId: number, advertiserId: number, day: string, nano: number, bidEngine: string): void {
    add(this.campaignSpend, campaignPoolKey(campaignId, day), bidEngine, nano);
    add(this.advertiserSpend, advertiserId, bidEngine, nano);
  }

  /**
   * Applies recorded spend to Redis and returns idle holds. Called on a timer and at shutdown.
   * A batch whose write failed stays as it is and is sent again (same number) by the next flush;
   * spend recorded meanwhile for that pool waits for it, so each pool's batches apply in order.
   */
  flush(): Promise<void> {
    this.flushing ??= this.flushOnce().finally(() => (this.flushing = undefined));
    return this.flushing;
  }

  /** Spend batches not yet confirmed by Redis. */
  get unsentSpend(): number {
    return this.unconfirmed.size + this.campaignSpend.size + this.advertiserSpend.size;
  }

  private async flushOnce(): Promise<void> {
    const redis = this.opts.redis;
    const engine = this.opts.engineId;
    const time = new Date(this.now()).toISOString();
    for (const [key, byEngine] of this.campaignSpend) {
      if (this.unconfirmed.has(`c ${key}`)) continue;
      this.campaignSpend.delete(key);
      const seq = ++this.spendSeq;
      this.unconfirmed.set(`c ${key}`, () =>
        redis.budSpendCampaign(
          2,
          key,
          totalKeyOfPool(key),
          sum(byEngine),
          POOL_TTL_MS,
          engine,
          seq,
          ...pairs(byEngine),
        ),
      );
    }
    for (const [adv, byEngine] of this.advertiserSpend) {
      if (this.unconfirmed.has(`a ${adv}`)) continue;
      this.advertiserSpend.delete(adv);
      const seq = ++this.spendSeq;
      this.unconfirmed.set(`a ${adv}`, () =>
        redis.budSpendAdvertiser(
          4,
          advertiserHoldKey(adv),
          balanceKey(adv),
          advertiserPendingKey(adv),
          ledgerKey(adv),
          sum(byEngine),
          'ad spend',
          time,
          engine,
          seq,
          ...pairs(byEngine),
        ),
      );
    }
    const failures: unknown[] = [];
    const marks = this.opts.spentMarks;
    await Promise.all(
      [...this.unconfirmed].map(([k, send]) =>
        send().then(
          () => {
            this.unconfirmed.delete(k);
            if (k.startsWith('c ')) marks?.add(campaignOfPool(k.slice(2)));
          },
          (err: unknown) => failures.push(err),
        ),
      ),
    );
    // After the spend it marks was applied; with the direct charges' marks since the last flush.
    await marks?.flush().catch((err: unknown) => failures.push(err));
    if (failures.length) throw failures[0];
    await this.releaseIdle();
  }

  /** Gives every hold back (shutdown), so other engines can use the budget at once. */
  async releaseAll(): Promise<void> {
    await this.releaseIdle(Infinity);
  }

  /**
   * Hands unused local budget of idle pools back to Redis. Outstanding bids
   * stay held until they expire; then the pool is forgotten.
   */
  private async releaseIdle(idleMs = IDLE_RELEASE_MS): Promise<void> {
    const now = this.now();
    if (idleMs !== Infinity && now - this.lastIdleScan < IDLE_SCAN_MS) return;
    this.lastIdleScan = now;
    const cutoff = idleMs === Infinity ? Infinity : now - idleMs;
    const jobs: Promise<void>[] = [];
    const pause = slices(SLICE_MS);
    let seen = 0;
    // Each pool is checked and released in one synchronous step; the pauses fall between pools. At most
    // RELEASE_WINDOW releases are in flight: thousands of pools idle at once (a burst of traffic five minutes
    // ago) sent as many script calls in one pipeline, and their replies, parsed and settled in one go, held the
    // loop for 15-25 ms.
    const settle = async () => {
      if (jobs.length < RELEASE_WINDOW) return;
      await Promise.all(jobs);
      jobs.length = 0;
    };
    for (const [key, s] of this.campaigns) {
      if (++seen % SCAN_STEP === 0) await pause();
      if (s.lastUse >= cutoff || s.refilling) continue;
      // Local budget goes back at once; outstanding bids stay held until they settle or expire.
      s.local = 0;
      if (s.outstanding === 0) this.campaigns.delete(key);
      jobs.push(
        this.rebase(s, now, undefined, (local, outstanding) =>
          this.opts.redis.budReserveCampaign(
            2,
            key,
            totalKeyOfPool(key),
            this.opts.engineId,
            0,
            local,
            outstanding,
            s.lastHold,
            0,
            POOL_TTL_MS,
            -1,
            -1,
          ),
        ),
      );
      await settle();
    }
    for (const [adv, s] of this.advertisers) {
      if (++seen % SCAN_STEP === 0) await pause();
      if (s.lastUse >= cutoff || s.refilling) continue;
      s.local = 0;
      if (s.outstanding === 0) this.advertisers.delete(adv);
      jobs.push(
        this.rebase(s, now, undefined, (local, outstanding) =>
          this.opts.redis.budReserveAdvertiser(
            3,
            advertiserHoldKey(adv),
            balanceKey(adv),
            advertiserPendingKey(adv),
            this.opts.engineId,
            0,
            local,
            outstanding,
            s.lastHold,
          ),
        ),
      );
      await settle();
    }
    await Promise.all(jobs);
  }

  private slice<K>(map: Map<K, Slice>, key: K): Slice {
    let s = map.get(key);
    if (!s) map.set(key, (s = new Slice()));
    return s;
  }

  private refillCampaign(s: Slice, key: string, c: Candidate, now: number): void {
    // A CPC campaign's slice paces its bids and reserves nothing its clicks spend: it is granted while the
    // budget has room for one more click at the campaign's bid (budget-scripts.ts, RESERVE_CAMPAIGN).
    const click = c.bidType === 'cpc' ? cpcMicroCentsToNano(c.bidMicroCents) : -1;
    s.cpc = click >= 0;
    // rebase never rejects: failures are reported through onError.
    void this.rebase(s, now, 'campaign', (local, outstanding) =>
      this.opts.redis.budReserveCampaign(
        2,
        key,
        totalKeyOfPool(key),
        this.opts.engineId,
        this.sliceNano,
        local,
        outstanding,
        s.lastHold,
        centsToNano(c.dailyBudgetCents),
        POOL_TTL_MS,
        c.totalBudgetCents < 0 ? -1 : centsToNano(c.totalBudgetCents),
        click,
      ),
    );
  }

  private refillAdvertiser(s: Slice, adv: number, now: number): void {
    void this.rebase(s, now, 'advertiser', (local, outstanding) =>
      this.opts.redis.budReserveAdvertiser(
        3,
        advertiserHoldKey(adv),
        balanceKey(adv),
        advertiserPendingKey(adv),
        this.opts.engineId,
        this.sliceNano,
        local,
        outstanding,
        s.lastHold,
      ),
    );
  }

  /** One re-base in flight per slice; the reply says what wins settled and what was granted. */
  private rebase(
    s: Slice,
    now: number,
    pool: 'campaign' | 'advertiser' | undefined,
    call: (local: number, outstanding: number) => Promise<[number, number]>,
  ): Promise<void> {
    if (s.refilling || now < s.dryUntil) return Promise.resolve();
    s.refilling = true;
    s.expire(now);
    const local = s.local;
    const outstanding = s.outstanding;
    // The rule this grant is reserved by: a grant that comes back after the campaign's bid type changed is
    // not spent (it stays in this engine's Redis hold until the next re-base).
    const cpc = s.cpc;
    return call(local, outstanding).then(
      ([grantRaw, releasedRaw]) => {
        const grant = Number(grantRaw);
        const released = Number(releasedRaw);
        s.refilling = false;
        s.settle(released);
        s.lastHold = local + Math.max(0, outstanding - released) + grant;
        if (s.cpc === cpc) s.local += grant;
        if (grant === 0) s.dryUntil = this.now() + DRY_RETRY_MS;
        if (pool) this.opts.onRebase?.(pool, grant > 0 ? 'granted' : 'dry');
      },
      (err: unknown) => {
        s.refilling = false;
        s.dryUntil = this.now() + DRY_RETRY_MS;
        if (pool) this.opts.onRebase?.(pool, 'error');
        this.opts.onError?.(err);
      },
    );
  }
}

function add<K>(map: Map<K, Map<string, number>>, key: K, engine: string, nano: number): void {
  let byEngine = map.get(key);
  if (!byEngine) map.set(key, (byEngine = new Map<string, number>()));
  byEngine.set(engine, (byEngine.get(engine) ?? 0) + nano);
}

const sum = (m: Map<string, number>): number => [...m.values()].reduce((a, b) => a + b, 0);
const pairs = (m: Map<string, number>): (string | number)[] => [...m].flat();
