import { slices } from '@adnet/runtime/slices';
import { budgetDay } from '@adnet/schemas/budget-day';
import { centsToNano } from '@adnet/schemas/money';
import { campaignPoolKey } from '@adnet/schemas/redis-keys';
import { pipelineByKey } from '@adnet/runtime/redis-pipelines';
import { compileSchedule, servingTimeOfDay } from '@adnet/schemas/schedule';
import type { StoredCampaign } from '@adnet/schemas/api';
import type { Redis } from 'ioredis';
import type { PaceHandle } from '../index/candidate.ts';
import type { EngineIndex } from '../index/engine-index.ts';
import type { IndexDelta } from '../index/index-update.ts';
import { MovedSince, SWEEP_PASSES } from '../store/moved.ts';
import { PacedCampaigns, isPaced } from './paced-campaigns.ts';
import { atRest, initialPacing, stepPacing } from './pacing-controller.ts';
import type { PacingState, ServingTime } from './pacing-controller.ts';

/** Campaigns whose spend one pipeline reads, and the longest a tick holds the event loop at a time. */
const READ_CHUNK = 500;
/** Campaigns stepped, put to rest, or given their rate, between two pauses. */
const STEP = 1_000;
/** 2, not 4: a slice plus a young-generation collection (2-4 ms at 100 000 campaigns) stayed under 5 ms. */
const SLICE_MS = 2;

/**
 * Runs the pacing controller for every even-paced campaign the engine serves: each tick reads the spend
 * today of the campaigns whose spend moved since the last tick (marked by whoever charged it:
 * @adnet/runtime/moved-marks) from their budget pools (what every engine has spent), steps each
 * controller, the others with the spend they had, and writes the rate into the campaign's pace handle in
 * the current index, where the pacing filter reads it. Every engine reads the same spend, so they arrive
 * at the same rates.
 *
 * A tick costs what moved, not every campaign. The list of paced campaigns follows the index's deltas
 * (paced-campaigns.ts). A controller stepped with the spend it had is at rest once its rate is one a step
 * without new spend keeps, whatever the time and the schedule (`atRest`): 1 under its budget, MIN_RATE at or
 * over it. A campaign that does not spend reaches it within a few ticks (the rate doubles each tick), and from
 * there each tick would only move its `spentAt` to the tick's time: the resting controllers share that time
 * (`restAt`) instead of being stepped one by one. A read of its spend, or a change to the campaign (its budget),
 * wakes a controller (`wake`): it takes `restAt` as its `spentAt` and is stepped as usual until it rests again.
 * At 100 000 campaigns a tick walked every one of them twice (50-150 ms of CPU every 10 s).
 */
/** One tick's times (ms since the epoch): when it runs, and the budget day it runs in. */
interface TickTimes {
  now: number;
  dayStart: number;
  dayEnd: number;
}

export class Pacer {
  /** Each paced campaign's controller, stepped in place; a resting one's `spentAt` is `restAt`. */
  private states = new Map<number, PacingState>();
  /** The controllers not at rest: stepped every tick. */
  private active = new Set<number>();
  /** When the resting controllers were last stepped (their `spentAt`). */
  private restAt = -Infinity;
  /** Campaigns whose rate may differ from their pace handle's: written into the index serving at the tick's end. */
  private dirty = new Set<number>();
  /** The pace handles the rates are in: those of an index told of (`indexChanged`), or written whole by a tick. */
  private handles: ReadonlyMap<number, PaceHandle> | undefined;
  /** Each campaign's serving time today, kept while the campaign (the index's object) is the same. */
  private serving = new Map<number, { campaign: StoredCampaign; time: ServingTime }>();
  private day = '';
  private readonly paced = new PacedCampaigns();
  /** Campaigns to read at the next tick though not marked: new to pacing, or not read. */
  private unread = new Set<number>();
  private readonly moved: MovedSince;

  /** `sweepPasses`: ticks per full sweep of the spend beside the marks (1: every tick reads every campaign). */
  constructor(
    private readonly redis: Redis,
    private readonly index: () => EngineIndex | undefined,
    private readonly now: () => number = Date.now,
    sweepPasses = SWEEP_PASSES,
  ) {
    this.moved = new MovedSince(redis, 'spent', sweepPasses);
  }

  /**
   * What each index published changed (the config mirror's `onIndex`): its new pace handles get the current
   * rates (every handle after a full rebuild), and the next tick looks at those campaigns alone.
   */
  indexChanged(index: EngineIndex, delta: IndexDelta): void {
    this.paced.indexChanged(index, delta);
    this.apply(index, delta.full ? undefined : delta.campaigns);
    this.handles = index.paces;
  }

  async tick(): Promise<void> {
    const index = this.index();
    if (!index) return;
    const now = this.now();
    const day = budgetDay(now);
    // A new budget day starts every campaign afresh.
    if (day !== this.day) {
      this.day = day;
      for (const id of this.states.keys()) this.dirty.add(id);
      this.states = new Map();
      this.active = new Set();
      this.restAt = -Infinity;
      this.serving = new Map();
      this.moved.forget();
    }
    // In pipelines of READ_CHUNK, letting requests in every SLICE_MS: at 100 000 campaigns one synchronous
    // pass held the event loop for tens of milliseconds every tick.
    const pause = slices(SLICE_MS);
    const repaced = await this.paced.update(index, pause, (id, paced) => this.repaced(id, paced));
    // A campaign that left pacing between two full looks (its campaign gone mid-tick) drops its controller too.
    if (repaced === 'all') {
      let seen = 0;
      for (const id of this.states.keys()) {
        if (++seen % STEP === 0) await pause();
        if (!this.paced.ids.has(id)) this.repaced(id, false);
      }
    }
    const marked = await this.moved.since(now);
    const reading = marked ? await this.movedOf(index, marked, pause) : [...this.paced.ids.keys()];
    const dayStart = Date.parse(`${day}T00:00:00Z`);
    const tick: TickTimes = { now, dayStart, dayEnd: dayStart + 86_400_000 };
    const unread = new Set<number>();
    for (let at = 0; at < reading.length; at += READ_CHUNK) {
      const ids = reading.slice(at, at + READ_CHUNK);
      // Woken a chunk at a time, not all before the reads: 5 000 marked campaigns held the loop 3 ms in one go.
      for (const id of ids) this.wake(id);
      const replies = await pipelineByKey(
        this.redis,
        ids.map((id) => campaignPoolKey(id, day)),
        (p, key) => p.hget(key, 'spent'),
      );
      ids.forEach((id, i) => {
        const [err, raw] = replies[i] ?? [new Error('no reply'), null];
        // Not read: its controller waits, and it is read again next tick.
        if (err) return unread.add(id);
        this.step(index, id, Number(raw ?? 0), tick);
      });
      await pause();
    }
    // The spend of every other campaign is what it was at the last tick: the same step a read would give. Those
    // at rest stay where they are but for their time; the others are stepped, in synchronous steps of STEP with
    // the pauses between them: a loop with an await in its body kept its iterator results and numbers on the heap.
    const active = this.active.values();
    while (this.stepSome(index, active, unread, tick)) await pause();
    this.restAt = Math.max(this.restAt, now);
    const settling = this.active.values();
    while (this.settleSome(index, settling)) await pause();
    this.unread = unread;
    this.moved.done(now);
    // Into the index serving now (one may have been published meanwhile), a slice at a time: the rates that may
    // have changed, or every rate into handles the pacer has not written (an index it was not told of).
    const latest = this.index() ?? index;
    const whole = latest.paces !== this.handles;
    const writing = whole ? latest.paces.keys() : this.dirty.values();
    while (this.applySome(latest, writing)) await pause();
    this.handles = latest.paces;
    this.dirty = new Set();
  }

  /** The controllers of every paced campaign, resting ones with their time (for tests and diagnostics; walks them all). */
  pacing(): Map<number, PacingState> {
    return new Map(
      [...this.states].map(([id, s]) => [id, this.active.has(id) ? { ...s } : { ...s, spentAt: this.restAt }]),
    );
  }

  /** What a change to campaign `id` means for its controller: one joining is read at the next tick, one leaving drops it. */
  private repaced(id: number, paced: boolean): void {
    if (!paced) {
      this.states.delete(id);
      this.active.delete(id);
      this.dirty.add(id);
    } else if (this.states.has(id)) this.wake(id);
    else this.unread.add(id);
  }

  /** Stepped from now on: a resting controller takes the time the resting ones were last stepped at. */
  private wake(id: number): void {
    if (this.active.has(id)) return;
    const s = this.states.get(id);
    if (!s) return;
    s.spentAt = this.restAt;
    this.active.add(id);
  }

  /** Steps the next STEP active controllers of `ids` with the spend they had; false once there are none left. */
  private stepSome(
    index: EngineIndex,
    ids: SetIterator<number>,
    unread: ReadonlySet<number>,
    tick: TickTimes,
  ): boolean {
    for (let n = 0; n < STEP; n++) {
      const next = ids.next();
      if (next.done) return false;
      const s = this.states.get(next.value);
      if (s && s.spentAt < tick.now && !unread.has(next.value)) this.step(index, next.value, s.lastSpent, tick);
    }
    return true;
  }

  /** Puts to rest the next STEP active controllers of `ids` that can rest; false once there are none left. */
  private settleSome(index: EngineIndex, ids: SetIterator<number>): boolean {
    for (let n = 0; n < STEP; n++) {
      const next = ids.next();
      if (next.done) return false;
      const id = next.value;
      const s = this.states.get(id);
      const campaign = index.campaigns.get(id);
      // Deleting the iterator's current value from its set leaves the rest of the walk as it was.
      if (!s) this.active.delete(id);
      else if (campaign && s.spentAt === this.restAt && atRest(s, centsToNano(campaign.daily_budget_cents)))
        this.active.delete(id);
    }
    return true;
  }

  /** Writes the rates of the next STEP campaigns of `ids` into `index`; false once there are none left. */
  private applySome(index: EngineIndex, ids: MapIterator<number> | SetIterator<number>): boolean {
    for (let n = 0; n < STEP; n++) {
      const next = ids.next();
      if (next.done) return false;
      const pace = index.paces.get(next.value);
      if (pace) pace.rate = this.states.get(next.value)?.rate ?? 1;
    }
    return true;
  }

  private step(index: EngineIndex, id: number, spent: number, { now, dayStart, dayEnd }: TickTimes): void {
    this.dirty.add(id);
    const campaign = index.campaigns.get(id);
    if (!campaign) {
      this.states.delete(id);
      this.active.delete(id);
      return;
    }
    const s = this.states.get(id);
    if (s)
      stepPacing(s, {
        now,
        spent,
        budget: centsToNano(campaign.daily_budget_cents),
        dayEnd,
        serving: this.servingTime(campaign, dayStart),
      });
    else {
      this.states.set(id, initialPacing(now, spent));
      this.active.add(id);
    }
  }

  /** The paced campaigns to read this tick: marked as moved, not read last time, and this tick's slice of the sweep. */
  private async movedOf(index: EngineIndex, marked: Set<number>, pause: () => Promise<void>): Promise<number[]> {
    for (const id of this.unread) marked.add(id);
    for (const id of this.moved.sweepKeys(this.paced.ids)) marked.add(id);
    const reading: number[] = [];
    let seen = 0;
    for (const id of marked) {
      if (++seen % STEP === 0) await pause();
      if (isPaced(index, id)) reading.push(id);
    }
    return reading;
  }

  /** The campaign's serving time in today's budget day, by its schedule in its time zone. */
  private servingTime(campaign: StoredCampaign, dayStart: number): ServingTime {
    const kept = this.serving.get(campaign.id);
    if (kept?.campaign === campaign) return kept.time;
    const time = servingTimeOfDay(compileSchedule(campaign), dayStart);
    this.serving.set(campaign.id, { campaign, time });
    return time;
  }

  /**
   * Writes the current rates into `index`'s pace handles (also after a new index is built); `only`: just
   * these campaigns' (an incremental update keeps every other campaign's handle, rate and all).
   */
  private apply(index: EngineIndex, only?: Iterable<number>): void {
    if (!only) {
      for (const [id, pace] of index.paces) pace.rate = this.states.get(id)?.rate ?? 1;
      return;
    }
    for (const id of only) {
      const pace = index.paces.get(id);
      if (pace) pace.rate = this.states.get(id)?.rate ?? 1;
    }
  }
}
