import { slices } from '@adnet/runtime/slices';
import type { Creative } from '@adnet/schemas/api';
import type { EngineEvent } from '@adnet/schemas/events';
import { rotationCountsKey } from '@adnet/schemas/redis-keys';
import type { Redis } from 'ioredis';
import type { CreativePicker } from '../auction/ports.ts';
import type { Candidate } from '../index/candidate.ts';
import type { EngineIndex } from '../index/engine-index.ts';
import { optimizeShares, sameEvidence } from './rotation-policy.ts';
import type { CreativeCounts } from './rotation-policy.ts';

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
  index: () => EngineIndex | undefined;
  random?: () => number;
  /** CPU one refresh may spend drawing shares (RECOMPUTE_BUDGET_MS); at least one campaign is drawn per refresh. */
  budgetMs?: number;
}

/**
 * The rotation shared by every engine. Each engine counts the impressions and valid clicks it
 * records, per creative, and adds them to the campaign's counts in Redis at each refresh (conversions
 * are added by the admin); then it reads every engine's totals back and recomputes each optimizing
 * campaign's shares (rotation-policy.ts). The hot path only draws from the shares in memory: counts
 * seen by every engine lag by one refresh.
 */
export class CreativeRotation implements CreativePicker {
  private pending = new Map<number, Map<string, number>>();
  /** Optimize shares by creative id, for campaigns with more than one approved creative. */
  private shares = new Map<number, number>();
  /** Per campaign: the counts its shares were drawn from, and when. */
  private drawn = new Map<number, { counts: string; at: number }>();
  private readonly random: () => number;
  /**
   * The optimizing campaigns of `index` with their approved creatives. Built anew at every refresh, the groups
   * (55 MB at 100 000 campaigns of 3 creatives) lived through the refresh's young-generation collections and were
   * copied and promoted by each; the engine publishes a new index object for every change, so they are kept until then.
   */
  private groups: { index: EngineIndex; optimizing: [number, Creative[]][] } | undefined;

  constructor(private readonly o: CreativeRotationOptions) {
    this.random = o.random ?? Math.random;
  }

  /** Sees every event the engine emits: counted impressions and wins, valid clicks. */
  observe(e: EngineEvent): void {
    if (e.type === 'impression' || e.type === 'win') this.count(e.campaign_id, `i:${e.creative_id}`);
    // A click on a demand partner's ad has no campaign of ours.
    else if (e.type === 'click' && !e.invalid && e.demand_partner_id === undefined) this.count(e.campaign_id, `k:${e.creative_id}`);
  }

  pick(siblings: readonly Candidate[]): Candidate {
    const first = siblings[0] as Candidate;
    if (siblings.length === 1) return first;
    let total = 0;
    const weights = siblings.map((c) => {
      const w = first.rotation === 'even' ? 1 : first.rotation === 'weighted' ? c.weight : (this.shares.get(c.creativeId) ?? 1 / siblings.length);
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
      const tx = this.o.redis.pipeline();
      for (const [campaign, fields] of sending) {
        const key = rotationCountsKey(campaign);
        for (const [field, n] of fields) tx.hincrby(key, field, n);
        tx.pexpire(key, COUNTS_TTL_MS);
      }
      if (sending.size) for (const [err] of (await tx.exec()) ?? []) if (err) throw err;
    } catch (err) {
      // Not sent: kept for the next refresh.
      for (const [campaign, fields] of sending) for (const [field, n] of fields) this.count(campaign, field, n);
      throw err;
    }
    await this.recompute();
  }

  private async recompute(): Promise<void> {
    const index = this.o.index();
    if (!index) return;
    const pause = slices(SLICE_MS);
    const optimizing = await this.optimizingOf(index, pause);
    const shares = new Map<number, number>();
    const drawn = new Map<number, { counts: string; at: number }>();
    const due: { campaign: number; stats: CreativeCounts[]; counts: string; waited: number }[] = [];
    // Read in pipelines of READ_CHUNK: writing 10 000 commands at once (and turning their replies into
    // objects) held the event loop for tens of milliseconds every refresh (bench:load, p99 at 1 000/s).
    // Each pipeline's replies are used before the next is read: kept for the whole refresh (36 MB at 100 000
    // campaigns), they lived through several young-generation collections and were copied by each.
    for (let at = 0; at < optimizing.length; at += READ_CHUNK) {
      const chunk = optimizing.slice(at, at + READ_CHUNK);
      const read = this.o.redis.pipeline();
      for (const [id] of chunk) read.hgetall(rotationCountsKey(id));
      const replies = (await read.exec()) ?? [];
      await pause();
      for (const [i, [campaign, creatives]] of chunk.entries()) {
        if (i % 100 === 0) await pause();
        const [err, raw] = replies[i] ?? [null, {}];
        const counts = (err ? {} : raw) as Record<string, string>;
        const before = this.drawn.get(campaign);
        let empty = true;
        for (const _ in counts) {
          empty = false;
          break;
        }
        if (empty) {
          // Never served (most campaigns of a network at any moment): even shares, nothing to compare. No entry
          // is even shares (`pick`): storing one per creative put 300 000 entries (and as many boxed numbers)
          // into a fresh map every refresh at 100 000 campaigns, promoted by the young-generation collections.
          drawn.set(campaign, before?.counts === '' ? before : { counts: '', at: performance.now() });
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
        for (const c of stats) {
          const old = this.shares.get(c.creativeId);
          if (old !== undefined) shares.set(c.creativeId, old);
        }
        if (before?.counts === key) drawn.set(campaign, before);
        else if (sameEvidence(stats)) {
          // No creative ahead of another: even shares without a draw, outside the budget.
          for (const c of stats) shares.set(c.creativeId, 1 / stats.length);
          drawn.set(campaign, { counts: key, at: performance.now() });
        } else due.push({ campaign, stats, counts: key, waited: before ? before.at : -1 });
      }
    }
    due.sort((a, b) => a.waited - b.waited);
    const started = performance.now();
    const budget = this.o.budgetMs ?? RECOMPUTE_BUDGET_MS;
    let count = 0;
    for (const d of due) {
      if (count++ > 0 && performance.now() - started >= budget) break;
      await pause();
      optimizeShares(d.stats, this.random).forEach((share, k) => shares.set((d.stats[k] as CreativeCounts).creativeId, share));
      drawn.set(d.campaign, { counts: d.counts, at: performance.now() });
    }
    for (const d of due)
      if (!drawn.has(d.campaign) && this.drawn.has(d.campaign)) drawn.set(d.campaign, this.drawn.get(d.campaign) as { counts: string; at: number });
    this.shares = shares;
    this.drawn = drawn;
  }

  private async optimizingOf(index: EngineIndex, pause: () => Promise<void>): Promise<[number, Creative[]][]> {
    if (this.groups?.index === index) return this.groups.optimizing;
    const byCampaign = new Map<number, Creative[]>();
    let seen = 0;
    for (const cr of index.creatives.values()) {
      if (++seen % 1_000 === 0) await pause();
      if (cr.status !== 'approved') continue;
      const list = byCampaign.get(cr.campaign_id);
      if (list) list.push(cr);
      else byCampaign.set(cr.campaign_id, [cr]);
    }
    // Stored before rotation existed: optimize.
    const optimizing: [number, Creative[]][] = [];
    seen = 0;
    for (const entry of byCampaign) {
      // One filter over 100 000 campaigns at once held the loop for tens of milliseconds.
      if (++seen % 1_000 === 0) await pause();
      if (entry[1].length > 1 && (index.campaigns.get(entry[0])?.rotation ?? 'optimize') === 'optimize') optimizing.push(entry);
    }
    this.groups = { index, optimizing };
    return optimizing;
  }

  private count(campaign: number, field: string, n = 1): void {
    let fields = this.pending.get(campaign);
    if (!fields) this.pending.set(campaign, (fields = new Map<string, number>()));
    fields.set(field, (fields.get(field) ?? 0) + n);
  }
}
