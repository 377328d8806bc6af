import { Periodic } from '@adnet/runtime/periodic';
import type { EngineEvent } from '@adnet/schemas/events';
import { xaddArgs } from '@adnet/schemas/wire/event-stream';
import type { Redis } from 'ioredis';

export interface BatcherOptions {
  redis: Redis;
  flushMs: number;
  batchMax: number;
  /** Events held at most; past it new events are dropped and counted (Redis unreachable for long). */
  bufferMax: number;
  streamMaxLen: number;
  onError?: (err: unknown) => void;
}

/**
 * Collects events on the hot path (a push onto an array) and writes them to the
 * Redis stream as msgpack batches of up to `batchMax`, every `flushMs` or as
 * soon as a batch is full. A failed write keeps the events for the next try.
 */
export class EventBatcher {
  private pending: EngineEvent[] = [];
  private readonly timer: Periodic;
  private writing: Promise<void> | undefined;
  dropped = 0;
  written = 0;
  /** Since when writes have failed (epoch ms), undefined after one went through: readiness reports it. */
  failingSinceMs: number | undefined;
  /** When the write in progress began (epoch ms): one that takes long means Redis is not answering. */
  writeStartedMs: number | undefined;
  /** Events in the write in progress (not in `backlog`). */
  inWrite = 0;

  constructor(private readonly opts: BatcherOptions) {
    this.timer = new Periodic({
      intervalMs: opts.flushMs,
      pass: () => this.flush(),
      onError: (err) => opts.onError?.(err),
    });
  }

  start(): void {
    this.timer.start();
  }

  push(event: EngineEvent): void {
    if (this.pending.length >= this.opts.bufferMax) {
      this.dropped++;
      return;
    }
    this.pending.push(event);
    if (this.pending.length >= this.opts.batchMax && !this.writing) void this.flush();
  }

  get backlog(): number {
    return this.pending.length;
  }

  /** Writes everything held; resolves when it is in Redis (or the write failed and the events were kept). */
  async flush(): Promise<void> {
    while (this.writing) await this.writing;
    if (this.pending.length === 0) return;
    const taken = this.pending;
    this.pending = [];
    this.writing = this.write(taken).finally(() => (this.writing = undefined));
    await this.writing;
  }

  /** Stops the timer and flushes what is held, retrying a few times. */
  async stop(): Promise<void> {
    await this.timer.stop();
    for (let attempt = 0; attempt < 5 && this.pending.length > 0; attempt++) {
      await this.flush();
      if (this.pending.length > 0) await new Promise((r) => setTimeout(r, 200));
    }
  }

  private async write(events: EngineEvent[]): Promise<void> {
    this.writeStartedMs = Date.now();
    this.inWrite = events.length;
    const pipeline = this.opts.redis.pipeline();
    for (let i = 0; i < events.length; i += this.opts.batchMax) {
      const batch = events.slice(i, i + this.opts.batchMax);
      pipeline.xadd(...xaddArgs(batch, this.opts.streamMaxLen));
    }
    try {
      const results = (await pipeline.exec()) ?? [];
      const failed = results.findIndex(([err]) => err);
      if (failed !== -1) throw results[failed]?.[0] ?? new Error('xadd failed');
      this.written += events.length;
      this.failingSinceMs = undefined;
    } catch (err) {
      this.failingSinceMs ??= Date.now();
      // Put them back in front, within the bound: what was accepted is not silently lost.
      const room = Math.max(0, this.opts.bufferMax - this.pending.length);
      this.dropped += Math.max(0, events.length - room);
      this.pending = events.slice(0, room).concat(this.pending);
      this.opts.onError?.(err);
    } finally {
      this.writeStartedMs = undefined;
      this.inWrite = 0;
    }
  }
}
