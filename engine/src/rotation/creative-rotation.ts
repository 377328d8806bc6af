import { slices } from '@adnet/runtime/slices';
import type { Creative } from '@adnet/schemas/api';
import type { EngineEvent } from '@adnet/schemas/events';
import { rotationCountsKey } from '@adnet/schemas/redis-keys';
import { pipelineByKey } from '@adnet/runtime/redis-pipelines';
import type { Redis } from 'ioredis';
import type { CreativePicker } from '../auction/ports.ts';
import type { Candidate } from '../index/candidate.ts';
import type { EngineIndex } from '../index/engine-index.ts';
import type { IndexDelta } from '../index/index-update.ts';
import { MovedMarks, MovedSince, SWEEP_PASSES } from '../store/moved.ts';
import { optimizeShares, sameEvidence } from './rotation-policy.ts';
import type { CreativeCounts } from './rotation-policy.ts';
import { RotationGroups } from './rotation-groups.ts';

/** Counts are lifetime; a campaign not served for this long starts afresh. */
const COUNTS_TTL_MS = 30 * 86_400_000;
/**
 * CPU one refresh may spend drawing shares, and the longest it holds the event loop at a time. Drawing
 * a campaign's shares costs about a millisecond; at 10 000 campaigns, all of them at once stalled the
 * engine for seconds every refresh. Campaigns whose counts did not change keep their shares; the rest
 * are drawn longest-waiting first, and what the budget leaves waits for the next refresh.
 */
const RECOMPUTE_BUDGET_MS = 200;
/** 2, not 4: a slice plus a young-generation collection (2-4 ms at 100 000 campaigns) stayed under 5 ms. */
const SLICE_MS = 2;
/** Campaigns whose counts one pipeline reads. */
const READ_CHUNK = 250;

export interface CreativeRotationOptions {
  redis: Redis;
  /** The latest index; each one it gives is also told to `indexChanged`, or every new index is regrouped whole. */
  index: () => EngineIndex | undefined;
  random?: () => number;
  /** CPU one refresh may spend drawing shares (RECOMPUTE_BUDGET_MS); at least one campaign is drawn per refresh. */
  budgetMs?: number;
  /** Refreshes per full sweep of the counts beside the marks (SWEEP_PASSES; 1: every refresh reads every campaign). */
  sweepPasses?: number;
  /** The wall clock the marks are bucketed by (Date.now). */
  now?: () => number;
}

/**
 * The rotation shared by every engine. Each engine counts the impressions and valid clicks it
 * records, per creative, and adds them to the campaign's counts in Redis at each refresh (conversions
 * are added by the admin), marking the campaign as moved (@adnet/runtime/moved-marks); then it
 * reads back the totals of the campaigns any engine marked since its last refresh and recomputes their
 * shares (rotation-policy.ts). The hot path only draws from the shares in memory: counts seen by every
 * engine lag by one refresh.
 */
export class CreativeRotation implements CreativePicker {
  private pending = new Map<number, Map<string, number>>();
  /** Optimize shares by creative id, for campaigns with more than one approved creative; kept and updated in place. */
  private shares = new Map<number, number>();
  /** Per campaign: the counts its shares were drawn from, and the refresh that drew them (`passes`). */
  private drawn = new Map<number, { counts: string; at: number }>();
  /** Refreshes that got as far as reading counts. */
  private passes = 0;
  private readonly random: () => number;
  private readonly now: () => number;
  /**
   * The optimizing campaigns with their approved creatives, regrouped at a refresh after a new index: only the
   * campaigns the new indexes changed, when told of them (rotation-groups.ts).
   */
  private readonly groups = new RotationGroups();
  /** Campaigns to read at the next refresh though not marked: group changed, not read, or left waiting by the budget. */
  private unread = new Set<number>();
  private readonly moved: MovedSince;
  private readonly marks: MovedMarks;

  constructor(private readonly o: CreativeRotationOptions) {
    this.random = o.random ?? Math.random;
    this.now = o.now ?? Date.now;
    this.moved = new MovedSince(o.redis, 'rotation', o.sweepPasses ?? SWEEP_PASSES);
    this.marks = new MovedMarks(o.redis, 'rotation');
  }

  /** What each index published changed (the config mirror's `onIndex`): the next refresh regroups only those campaigns. */
  indexChanged(index: EngineIndex, delta: IndexDelta): void {
    this.groups.indexChanged(index, delta);
  }

  /** Sees every event the engine emits: counted impressions and wins, valid clicks. */
  observe(e: EngineEvent): void {
    if (e.type === 'impression' || e.type === 'win') this.count(e.campaign_id, `i:${e.creative_id}`);
    // A click on a demand partner's ad has no campaign of ours.
    else if (e.type === 'click' && !e.invalid && e.demand_partner_id === undefined)
      this.count(e.campaign_id, `k:${e.creative_id}`);
  }

  pick(siblings: readonly Candidate[]): Candidate {
    const first = siblings[0] as Candidate;
    if (siblings.length === 1) return first;
    let total = 0;
    const weights = siblings.map((c) => {
      const w =
        first.rotation === 'even'
          ? 1
          : first.rotation === 'weighted'
            ? c.weight
            : (this.shares.get(c.creativeId) ?? 1 / siblings.length);
      total += w;
      return w;
    });
    // Weighted with every weight zero: nothing to follow, so even.
    if (total <= 0) return siblings[Math.floor(this.random() * siblings.length)] as Candidate;
    let r = this.random() * total;
    for (let i = 0; i < siblings.length; i++) {
      r -= weights[i] as number;
      if (r < 0) return siblings[i] as Candidate;
    }
    return siblings[siblings.length - 1] as Candidate;
  }

  /** Adds this engine's counts to the shared ones, then recomputes the shares from every engine's. */
  async refresh(): Promise<void> {
    const sending = this.pending;
    this.pending = new Map<number, Map<string, number>>();
    try {
      const campaigns = [...sending.keys()];
      const replies = await pipelineByKey(
        this.o.redis,
        campaigns.map((c) => rotationCountsKey(c)),
        (p, key, i) => {
          for (const [field, n] of sending.get(campaigns[i] as number) ?? []) p.hincrby(key, field, n);
          p.pexpire(key, COUNTS_TTL_MS);
        },
      );
      for (const [err] of replies) if (err) throw err;
    } catch (err) {
      // Not sent: kept for the next refresh.
      for (const [campaign, fields] of sending) for (const [field, n] of fields) this.count(campaign, field, n);
      throw err;
    }
    // Counted, then marked: whoever reads the mark reads these counts.
    for (const campaign of sending.keys()) this.marks.add(campaign);
    await this.marks.flush(this.now());
    await this.recompute();
  }

  private async recompute(): Promise<void> {
    const index = this.o.index();
    if (!index) return;
    const pause = slices(SLICE_MS);
    const now = this.now();
    await this.groups.update(index, pause, (campaign, was, group) => this.regrouped(campaign, was, group));
    const groups = this.groups.groups;
    const marked = await this.moved.since(now);
    const reading = marked ? this.movedOf(groups, marked) : [...groups.keys()];
    const pass = this.passes++;
    const due: { campaign: number; stats: CreativeCounts[]; counts: string; waited: number }[] = [];
    const unread = new Set<number>();
    // Read in pipelines of READ_CHUNK: writing 10 000 commands at once (and turning their replies into
    // objects) held the event loop for tens of milliseconds every refresh (bench:load, p99 at 1 000/s).
    // Each pipeline's replies are used before the next is read: kept for the whole refresh (36 MB at 100 000
    // campaigns), they lived through several young-generation collections and were copied by each.
    for (let at = 0; at < reading.length; at += READ_CHUNK) {
      const chunk = reading.slice(at, at + READ_CHUNK);
      const replies = await pipelineByKey(
        this.o.redis,
        chunk.map((id) => rotationCountsKey(id)),
        (p, key) => p.hgetall(key),
      );
      await pause();
      for (const [i, campaign] of chunk.entries()) {
        if (i % 100 === 0) await pause();
        // Groups change only at the start of a refresh (`update` above): every campaign read has one.
        const creatives = groups.get(campaign) as readonly Creative[];
        const [err, raw] = replies[i] ?? [new Error('no reply'), {}];
        // Not read: as it was, and read again next time.
        if (err) {
          unread.add(campaign);
          continue;
        }
        const counts = raw as Record<string, string>;
        const before = this.drawn.get(campaign);
        let empty = true;
        for (const _ in counts) {
          empty = false;
          break;
        }
        if (empty) {
          // Never served (most campaigns of a network at any moment): even shares, nothing to compare. No entry
          // is even shares (`pick`): one per creative put 300 000 entries (and as many boxed numbers) into the
          // map at 100 000 campaigns.
          for (const cr of creatives) this.shares.delete(cr.id);
          if (before?.counts !== '') this.drawn.set(campaign, { counts: '', at: pass });
          continue;
        }
        const of = (field: string) => Number(counts[field] ?? 0);
        const stats: CreativeCounts[] = creatives.map((cr) => ({
          creativeId: cr.id,
          impressions: of(`i:${cr.id}`),
          clicks: of(`k:${cr.id}`),
          conversions: of(`v:${cr.id}`),
          weight: cr.weight,
        }));
        const key = stats.map((c) => `${c.creativeId}:${c.impressions}:${c.clicks}:${c.conversions}`).join(',');
        // Shares drawn from older counts (or none yet) serve until this campaign's turn comes.
        if (before?.counts === key) continue;
        if (sameEvidence(stats)) {
          // No creative ahead of another: even shares without a draw, outside the budget.
          for (const c of stats) this.shares.set(c.creativeId, 1 / stats.length);
          this.drawn.set(campaign, { counts: key, at: pass });
        } else due.push({ campaign, stats, counts: key, waited: before ? before.at : -1 });
      }
    }
    // By the refresh that last drew them, then by id: the same order whatever order the campaigns were read in
    // (the marks', the groups').
    due.sort((a, b) => a.waited - b.waited || a.campaign - b.campaign);
    const started = performance.now();
    const budget = this.o.budgetMs ?? RECOMPUTE_BUDGET_MS;
    let count = 0;
    for (const d of due) {
      // What the budget leaves is read again next time, as if it had moved.
      if (count++ > 0 && performance.now() - started >= budget) {
        unread.add(d.campaign);
        continue;
      }
      await pause();
      optimizeShares(d.stats, this.random).forEach((share, k) =>
        this.shares.set((d.stats[k] as CreativeCounts).creativeId, share),
      );
      this.drawn.set(d.campaign, { counts: d.counts, at: pass });
    }
    this.unread = unread;
    this.moved.done(now);
  }

  /** The optimizing campaigns to read this time: those marked as moved, those not read or drawn last time, and this refresh's slice of the sweep. */
  private movedOf(groups: ReadonlyMap<number, readonly Creative[]>, marked: Set<number>): number[] {
    for (const c of this.unread) marked.add(c);
    for (const c of this.moved.sweepKeys(groups)) marked.add(c);
    const reading: number[] = [];
    for (const c of marked) if (groups.has(c)) reading.push(c);
    return reading;
  }

  /** A group that changed is read at the next refresh; one that left drops its shares and its draw, as a full read's new maps would. */
  private regrouped(
    campaign: number,
    was: readonly Creative[] | undefined,
    group: readonly Creative[] | undefined,
  ): void {
    if (group) this.unread.add(campaign);
    else {
      this.drawn.delete(campaign);
      this.unread.delete(campaign);
    }
    for (const cr of was ?? []) if (!group?.some((x) => x.id === cr.id)) this.shares.delete(cr.id);
  }

  private count(campaign: number, field: string, n = 1): void {
    let fields = this.pending.get(campaign);
    if (!fields) this.pending.set(campaign, (fields = new Map<string, number>()));
    fields.set(field, (fields.get(field) ?? 0) + n);
  }
}
