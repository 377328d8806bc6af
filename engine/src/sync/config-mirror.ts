import { Periodic } from '@adnet/runtime/periodic';
import { CFG_NOTICE_CHANNEL } from '@adnet/schemas/redis-keys';
import type { Redis } from 'ioredis';
import { setImmediate as yieldToRequests } from 'node:timers/promises';
import { slices } from '@adnet/runtime/slices';
import { bookOf, buildIndex } from '../index/engine-index.ts';
import type { ConfigState, EngineIndex } from '../index/engine-index.ts';
import { FULL_DELTA, updateIndex } from '../index/index-update.ts';
import type { ConfigChange, IndexDelta } from '../index/index-update.ts';
import { compareSeq, logBounds, readChanges, readSnapshot } from '@adnet/schemas/wire/change-log';
import type { ChangeEntry } from '@adnet/schemas/changes';
import { sameSourceList } from '@adnet/schemas/source-lists';
import type { SourceList } from '@adnet/schemas/source-lists';
import { snapshotChanges } from './snapshot-diff.ts';
import { CostEstimate } from './cost-estimate.ts';

export interface MirrorOptions {
  redis: Redis;
  /** A second connection: a subscribed Redis connection can do nothing else. */
  subscriber: Redis;
  /** Backstop for lost notices (pub/sub is at most once). */
  pollMs?: number;
  /** Each published index, with what changed since the last one (consumers do work in proportion to it). */
  onIndex?: (index: EngineIndex, delta: IndexDelta) => void;
  onError?: (err: unknown) => void;
}

/**
 * The time after which a catch-up lets the event loop go, and what one group of changes (one `updateIndex`
 * call) may cost: a catch-up of thousands of changes (an import, a bulk pause) publishes the index once per
 * slice, each one the configuration as of a position in the log. A slice takes another group only while
 * that group, as the last ones cost, and the consumers' work for the index it publishes fit in SLICE_MS, so
 * it holds requests for about SLICE_MS, not SLICE_MS plus a group plus the consumers. A group is sized from
 * what the last groups cost per change (cost-estimate.ts), between 1 and GROUP_MAX changes: in step 4, at 100 000 campaigns a fixed group of 8
 * cost up to 8 ms, at 10 000 under 1 ms (bench/results/ab-history.md, steps 4 and 9, have the measured
 * bounds; "Step: the burst of 1 000 changes" the slice's own bound). GROUP_MAX bounds the one group no estimate
 * can size: the first after V8 starts marking for a full collection, when a change costs about ten times what
 * the last groups did (0.36-0.63 ms instead of 0.03-0.05 at 100 000 campaigns): groups of 20-31 then held the
 * loop for 7-14 ms, groups of 8 for 3.3-4.9 ms ("Step: the burst in V8's marking").
 */
const SLICE_MS = 2;
const GROUP_MS = 1;
const GROUP_MAX = 8;
/**
 * Log entries read per round trip: decoding 1 000 changes at once held the loop for 20 ms and more; they are
 * decoded in slices of SLICE_MS too.
 */
const READ_COUNT = 100;
/**
 * A fresh snapshot whose changes outnumber this share of the entities (the mirror's and the snapshot's counted
 * together: 0.05 is about a tenth of the configuration) is built whole, one stall (1.6 s at 100 000 campaigns),
 * rather than applied change by change (~0.1-0.2 ms each at that size, sliced): past it the changes alone
 * would take many seconds.
 */
const SNAPSHOT_FULL_SHARE = 0.05;

/**
 * How many changes the next group takes, from what a change has cost lately (ms): about GROUP_MS of work,
 * at most GROUP_MAX changes. Rounded, not floored: a group costs something of its own besides its changes
 * (while V8 marks, groups of one change took 0.53-0.66 ms, of two 0.73-0.99, of three 0.88-1.28), so a cost per
 * change measured on groups of one, about 0.6 ms, floored to groups of one again, and the burst went through
 * the marking at 0.69-0.84 ms a change instead of 0.52-0.68 ("Step: the burst in V8's marking").
 */
export function changesPerGroup(perChangeMs: number): number {
  return Math.max(1, Math.min(GROUP_MAX, Math.round(GROUP_MS / perChangeMs)));
}

/**
 * Keeps an in-memory copy of the configuration: a snapshot, then the change
 * log after it. A pub/sub notice or the poll timer triggers a catch-up; a log
 * trimmed past our position, or one that went backwards (Redis restarted
 * without its data), triggers a fresh snapshot. A catch-up reads every pending
 * change first, then applies them and publishes the next index in one
 * synchronous step per slice (index/index-update.ts: only what changed is
 * rebuilt), so the hot path never sees a half-applied change.
 */
export class ConfigMirror {
  index: EngineIndex | undefined;
  private state: ConfigState | undefined;
  private seq = '0-0';
  private running: Promise<void> | undefined;
  private again = false;
  /** What one change has cost the index lately (ms), to size the next group. */
  private readonly perChange = new CostEstimate(GROUP_MS / 8);
  /** What publishing one changed campaign has cost the consumers lately (ms): part of a slice's time. */
  private readonly publishPerCampaign = new CostEstimate(0);
  private readonly poll: Periodic;
  /**
   * When the current index was published, its consumers included (epoch ms, sub-ms): what a request
   * answered from then on saw. Readiness reports it, so a change's way from commit to the engine is
   * measured where it ends, not where a poller next looks (bench/src/run-config.ts).
   */
  indexPublishedMs = 0;
  /**
   * When a catch-up last went through to the end of the change log (epoch ms): readiness calls the mirror behind
   * when this is old (a hung or lost Redis stalls catch-ups, and the poll makes one a second otherwise).
   */
  caughtUpAtMs = 0;

  constructor(private readonly opts: MirrorOptions) {
    this.poll = new Periodic({
      intervalMs: opts.pollMs ?? 1_000,
      pass: () => this.trigger(),
      onError: (err) => opts.onError?.(err),
    });
  }

  async start(): Promise<void> {
    await this.resync();
    this.caughtUpAtMs = Date.now();
    const kick = () => void this.trigger();
    this.opts.subscriber.on('message', kick);
    // After a reconnect, notices sent while away are gone: catch up at once.
    this.opts.subscriber.on('ready', kick);
    this.opts.redis.on('ready', kick);
    await this.opts.subscriber.subscribe(CFG_NOTICE_CHANNEL);
    this.poll.start();
  }

  stop(): Promise<void> {
    return this.poll.stop();
  }

  /** Resolves when a catch-up (started now or already running) is done. */
  trigger(): Promise<void> {
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = (async () => {
      do {
        this.again = false;
        try {
          await this.catchUp();
          this.caughtUpAtMs = Date.now();
        } catch (err) {
          this.opts.onError?.(err);
        }
      } while (this.again);
    })().finally(() => (this.running = undefined));
    return this.running;
  }

  private async resync(): Promise<void> {
    // At start nothing serves yet: decode in one go. A running engine (a trimmed log, a Redis that restarted)
    // lets requests in while it decodes and compares, and applies only what differs, in slices.
    const state = this.state;
    const index = this.index;
    const pause = state && index ? slices(SLICE_MS) : undefined;
    const snap = await readSnapshot(this.opts.redis, pause);
    if (state && index && bookOf(index) && this.state === state) {
      const changes = await snapshotChanges(state, snap.entities, SNAPSHOT_FULL_SHARE, pause);
      if (changes && changes.length === 0) {
        this.seq = snap.seq;
        const next = updateIndex(index, state, [], snap.seq);
        return this.publish(next.index, next.delta);
      }
      // Every group but the last keeps the mirror's position: only the whole difference is the snapshot's.
      if (changes)
        return this.apply(changes.map((c, i) => ({ ...c, seq: i === changes.length - 1 ? snap.seq : this.seq })));
    }
    keepUnchangedLists(this.state?.campaign_sources, snap.entities.campaign_sources);
    this.state = snap.entities;
    this.seq = snap.seq;
    this.publish(buildIndex(this.state, this.seq, index), FULL_DELTA);
  }

  private async catchUp(): Promise<void> {
    if (!this.state) return this.resync();
    const bounds = await logBounds(this.opts.redis);
    const lost =
      this.seq !== '0-0' &&
      (!bounds || compareSeq(bounds.last, this.seq) < 0 || compareSeq(bounds.first, this.seq) > 0);
    if (lost) return this.resync();
    const pending: ChangeEntry[] = [];
    const pause = slices(SLICE_MS);
    for (let from = this.seq; ;) {
      const batch = await readChanges(this.opts.redis, from, READ_COUNT, pause);
      if (batch.length === 0) break;
      pending.push(...batch);
      from = (batch.at(-1) as ChangeEntry).seq;
    }
    if (pending.length > 0) await this.apply(pending);
  }

  private async apply(changes: readonly (ConfigChange & { readonly seq: string })[]): Promise<void> {
    for (let at = 0; at < changes.length;) {
      if (at > 0) await yieldToRequests();
      const state = this.state;
      let index = this.index;
      if (!state || !index) return this.resync();
      const started = performance.now();
      const campaigns = new Set<number>();
      let full = false;
      const groupSize = () => changesPerGroup(this.perChange.ms);
      try {
        do {
          const size = groupSize();
          const group = changes.slice(at, at + size);
          const groupStarted = performance.now();
          const next = updateIndex(index, state, group, (group.at(-1) as { seq: string }).seq);
          this.perChange.add((performance.now() - groupStarted) / group.length);
          index = next.index;
          full ||= next.delta.full;
          for (const id of next.delta.campaigns) campaigns.add(id);
          at += group.length;
          // Another group only if it fits, as it is expected to cost, with the consumers' work for the index
          // (publish below), which grows with the campaigns changed: a group begun at the end of a slice held the
          // loop for a whole group more, and the consumers (the budget's prewarm, a Redis call per campaign) came on top.
        } while (
          at < changes.length &&
          performance.now() - started + this.perChange.ms * groupSize() + this.publishPerCampaign.ms * campaigns.size <
            SLICE_MS
        );
      } catch (err) {
        // The state may hold part of a group: start again from a snapshot.
        this.state = undefined;
        this.opts.onError?.(err);
        return this.resync();
      }
      this.seq = index.seq;
      const publishing = performance.now();
      this.publish(index, full ? FULL_DELTA : { full: false, campaigns });
      if (!full && campaigns.size > 0) this.publishPerCampaign.add((performance.now() - publishing) / campaigns.size);
    }
  }

  private publish(index: EngineIndex, delta: IndexDelta): void {
    this.index = index;
    this.opts.onIndex?.(index, delta);
    this.indexPublishedMs = performance.timeOrigin + performance.now();
  }
}

/**
 * A fresh snapshot decodes every source list anew, and the index compiles lists by object (a thousand
 * 10 000-entry lists take seconds): where a list is unchanged, the object already compiled is kept.
 */
export function keepUnchangedLists(before: Map<number, unknown> | undefined, after: Map<number, unknown>): void {
  if (!before) return;
  for (const [id, list] of after) {
    const old = before.get(id);
    if (old !== undefined && sameSourceList(old as SourceList, list as SourceList)) after.set(id, old);
  }
}
