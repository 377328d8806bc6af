import { Periodic } from '@adnet/runtime/periodic';
import { CFG_NOTICE_CHANNEL } from '@adnet/schemas/redis-keys';
import type { Redis } from 'ioredis';
import { buildIndex } from '../index/engine-index.ts';
import type { ConfigState, EngineIndex } from '../index/engine-index.ts';
import { compareSeq, logBounds, readChanges, readSnapshot } from '@adnet/schemas/wire/change-log';
import { sameSourceList } from '@adnet/schemas/source-lists';
import type { SourceList } from '@adnet/schemas/source-lists';

export interface MirrorOptions {
  redis: Redis;
  /** A second connection: a subscribed Redis connection can do nothing else. */
  subscriber: Redis;
  /** Backstop for lost notices (pub/sub is at most once). */
  pollMs?: number;
  onIndex?: (index: EngineIndex) => void;
  onError?: (err: unknown) => void;
}

/**
 * Keeps an in-memory copy of the configuration: a snapshot, then the change
 * log after it. A pub/sub notice or the poll timer triggers a catch-up; a log
 * trimmed past our position, or one that went backwards (Redis restarted
 * without its data), triggers a fresh snapshot. Changes are applied to a copy
 * and published as a new immutable index only when a whole batch is in, so the
 * hot path never sees a half-applied change.
 */
export class ConfigMirror {
  index: EngineIndex | undefined;
  private state: ConfigState | undefined;
  private seq = '0-0';
  private running: Promise<void> | undefined;
  private again = false;
  private readonly poll: Periodic;
  lastSyncAt = 0;

  constructor(private readonly opts: MirrorOptions) {
    this.poll = new Periodic({ intervalMs: opts.pollMs ?? 1_000, pass: () => this.trigger(), onError: (err) => opts.onError?.(err) });
  }

  async start(): Promise<void> {
    await this.resync();
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
        } catch (err) {
          this.opts.onError?.(err);
        }
      } while (this.again);
    })().finally(() => (this.running = undefined));
    return this.running;
  }

  private async resync(): Promise<void> {
    const snap = await readSnapshot(this.opts.redis);
    keepUnchangedLists(this.state?.campaign_sources, snap.entities.campaign_sources);
    this.state = snap.entities;
    this.seq = snap.seq;
    this.publish();
  }

  private async catchUp(): Promise<void> {
    if (!this.state) return this.resync();
    const bounds = await logBounds(this.opts.redis);
    const lost = this.seq !== '0-0' && (!bounds || compareSeq(bounds.last, this.seq) < 0 || compareSeq(bounds.first, this.seq) > 0);
    if (lost) return this.resync();
    let changed = false;
    const next: ConfigState = { ...this.state };
    const copied = new Set<string>();
    for (;;) {
      const batch = await readChanges(this.opts.redis, this.seq, 1_000);
      if (batch.length === 0) break;
      for (const c of batch) {
        // Copy-on-write per kind: the published index keeps its own maps.
        let kind = next[c.kind];
        if (!kind || !copied.has(c.kind)) {
          next[c.kind] = kind = new Map(kind);
          copied.add(c.kind);
        }
        if (c.op === 'del') kind.delete(c.id);
        else kind.set(c.id, c.value);
        this.seq = c.seq;
      }
      changed = true;
    }
    if (changed) {
      this.state = next;
      this.publish();
    }
    this.lastSyncAt = Date.now();
  }

  private publish(): void {
    if (!this.state) return;
    this.index = buildIndex(this.state, this.seq);
    this.lastSyncAt = Date.now();
    this.opts.onIndex?.(this.index);
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
