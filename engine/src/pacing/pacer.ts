import { slices } from '@adnet/runtime/slices';
import { budgetDay } from '@adnet/schemas/budget-day';
import { centsToNano } from '@adnet/schemas/money';
import { campaignPoolKey } from '@adnet/schemas/redis-keys';
import { pipelineByKey } from '@adnet/schemas/redis-pipelines';
import { compileSchedule, servingTimeOfDay } from '@adnet/schemas/schedule';
import type { StoredCampaign } from '@adnet/schemas/api';
import type { Redis } from 'ioredis';
import type { EngineIndex } from '../index/engine-index.ts';
import { MovedSince, SWEEP_PASSES } from '../store/moved.ts';
import { initialPacing, stepPacing } from './pacing-controller.ts';
import type { PacingState, ServingTime } from './pacing-controller.ts';

/** Campaigns whose spend one pipeline reads, and the longest a tick holds the event loop at a time. */
const READ_CHUNK = 500;
/** Campaigns stepped, or given their rate, between two pauses. */
const STEP = 1_000;
/** 2, not 4: a slice plus a young-generation collection (2-4 ms at 100 000 campaigns) stayed under 5 ms. */
const SLICE_MS = 2;

/**
 * Runs the pacing controller for every even-paced campaign the engine serves: each tick reads the spend
 * today of the campaigns whose spend moved since the last tick (marked by whoever charged it:
 * @adnet/schemas/moved-marks) from their budget pools (what every engine has spent), steps each
 * controller, the others with the spend they had, and writes the rate into the campaign's pace handle in
 * the current index, where the pacing filter reads it. Every engine reads the same spend, so they arrive
 * at the same rates.
 */
export class Pacer {
  /** Each paced campaign's controller, stepped in place. */
  private states = new Map<number, PacingState>();
  /** Each campaign's serving time today, kept while the campaign (the index's object) is the same. */
  private serving = new Map<number, { campaign: StoredCampaign; time: ServingTime }>();
  private day = '';
  /** The even-paced campaigns of `index`, kept until the engine publishes a new index. */
  private paced: { index: EngineIndex; ids: number[] } | undefined;
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

  async tick(): Promise<void> {
    const index = this.index();
    if (!index) return;
    const now = this.now();
    const day = budgetDay(now);
    // A new budget day starts every campaign afresh.
    if (day !== this.day) {
      this.day = day;
      this.states = new Map();
      this.serving = new Map();
      this.moved.forget();
    }
    // Every even-paced campaign, in pipelines of READ_CHUNK, letting requests in every SLICE_MS: at 100 000
    // campaigns one synchronous pass held the event loop for tens of milliseconds every tick.
    const pause = slices(SLICE_MS);
    const paced = await this.pacedOf(index, pause);
    const marked = await this.moved.since(now);
    const reading = marked ? this.movedOf(index, paced, marked) : paced;
    const dayStart = Date.parse(`${day}T00:00:00Z`);
    const dayEnd = dayStart + 86_400_000;
    const unread = new Set<number>();
    for (let at = 0; at < reading.length; at += READ_CHUNK) {
      const ids = reading.slice(at, at + READ_CHUNK);
      const replies = await pipelineByKey(
        this.redis,
        ids.map((id) => campaignPoolKey(id, day)),
        (p, key) => p.hget(key, 'spent'),
      );
      ids.forEach((id, i) => {
        const [err, raw] = replies[i] ?? [new Error('no reply'), null];
        // Not read: its controller waits, and it is read again next tick.
        if (err) return unread.add(id);
        this.step(index, id, now, Number(raw ?? 0), dayStart, dayEnd);
      });
      await pause();
    }
    // The spend of every other campaign is what it was at the last tick: the same step a read would give.
    // Both walks run in synchronous steps of STEP campaigns with the pauses between them: a loop with an
    // await in its body kept its iterator results and numbers on the heap, 140 bytes a campaign every tick.
    for (let at = 0; at < paced.length; at += STEP) {
      this.stepUnmoved(index, paced, at, unread, now, dayStart, dayEnd);
      await pause();
    }
    this.unread = unread;
    this.moved.done(now);
    // Into the index serving now (one may have been published meanwhile), a slice at a time.
    const latest = this.index() ?? index;
    const ids = latest.paces.keys();
    while (this.applySome(latest, ids)) await pause();
  }

  private stepUnmoved(
    index: EngineIndex,
    paced: readonly number[],
    from: number,
    unread: ReadonlySet<number>,
    now: number,
    dayStart: number,
    dayEnd: number,
  ): void {
    for (let i = from; i < paced.length && i < from + STEP; i++) {
      const id = paced[i] as number;
      const s = this.states.get(id);
      if (s && s.spentAt < now && !unread.has(id)) this.step(index, id, now, s.lastSpent, dayStart, dayEnd);
    }
  }

  /** Writes the rates of the next STEP campaigns of `ids` into `index`; false once there are none left. */
  private applySome(index: EngineIndex, ids: MapIterator<number>): boolean {
    for (let n = 0; n < STEP; n++) {
      const next = ids.next();
      if (next.done) return false;
      const pace = index.paces.get(next.value);
      if (pace) pace.rate = this.states.get(next.value)?.rate ?? 1;
    }
    return true;
  }

  private step(index: EngineIndex, id: number, now: number, spent: number, dayStart: number, dayEnd: number): void {
    const campaign = index.campaigns.get(id);
    if (!campaign) {
      this.states.delete(id);
      return;
    }
    const s = this.states.get(id);
    if (s) stepPacing(s, now, spent, centsToNano(campaign.daily_budget_cents), dayEnd, this.servingTime(campaign, dayStart));
    else this.states.set(id, initialPacing(now, spent));
  }

  /** The paced campaigns to read this tick: marked as moved, not read last time, and this tick's slice of the sweep. */
  private movedOf(index: EngineIndex, paced: readonly number[], marked: Set<number>): number[] {
    for (const id of this.unread) marked.add(id);
    for (const id of this.moved.sweep(paced)) marked.add(id);
    const reading: number[] = [];
    for (const id of marked) if (this.isPaced(index, id)) reading.push(id);
    return reading;
  }

  /**
   * The even-paced campaigns of `index`. One that joined is read at the next tick (it has no controller yet);
   * one that left drops its controller, as a full read's new map would.
   */
  private async pacedOf(index: EngineIndex, pause: () => Promise<void>): Promise<number[]> {
    if (this.paced?.index === index) return this.paced.ids;
    const ids: number[] = [];
    let seen = 0;
    for (const id of index.paces.keys()) {
      if (++seen % 1_000 === 0) await pause();
      if (!this.isPaced(index, id)) continue;
      ids.push(id);
      if (!this.states.has(id)) this.unread.add(id);
    }
    for (const id of this.states.keys()) {
      if (++seen % 1_000 === 0) await pause();
      if (!this.isPaced(index, id)) this.states.delete(id);
    }
    this.paced = { index, ids };
    return ids;
  }

  private isPaced(index: EngineIndex, id: number): boolean {
    return index.paces.has(id) && (index.campaigns.get(id)?.pacing ?? 'even') === 'even';
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
  apply(index: EngineIndex, only?: Iterable<number>): void {
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
