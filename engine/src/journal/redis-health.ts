import { connectRedis } from '@adnet/runtime/redis-connect';
import type { Redis } from 'ioredis';

export interface RedisHealthOptions {
  url: string;
  /** A PING is sent this often. */
  intervalMs: number;
  /** A PING not answered within this long counts as Redis away. */
  timeoutMs: number;
  onChange?: (up: boolean, why: string) => void;
}

const FIRST_CONNECT_GRACE_MS = 5_000;

/**
 * Whether the request paths may use Redis now: a PING on a connection of its own (no offline queue, a
 * command timeout), so that a Redis that hangs (its process stopped) or is down is seen within one interval
 * and a deadline, never by waiting on it. The request paths also report a missed deadline (`suspect`), which
 * counts as away until the next PING answers in time.
 */
export class RedisHealth {
  private readonly probe: Redis;
  private timer: NodeJS.Timeout | undefined;
  private state = true;
  private pinging = false;
  /** When Redis last answered a PING in time (ms since the epoch). */
  lastAnswerAt = Date.now();
  /** Since when Redis has been up (ms since the epoch). */
  upSince = Date.now();
  /** When Redis last came back after being away (ms since the epoch); 0 when it never was away since it first answered. */
  backAt = 0;
  /** A PING has been answered: an away before it (the probe still connecting at start) is no outage. */
  private answered = false;
  private readonly createdAt = Date.now();

  constructor(private readonly o: RedisHealthOptions) {
    this.probe = connectRedis(o.url, {
      connectionName: 'engine-health',
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      commandTimeout: o.timeoutMs,
      retryStrategy: () => Math.max(o.intervalMs, 100),
      enableAutoPipelining: false,
    });
    this.probe.on('error', () => undefined);
  }

  get up(): boolean {
    return this.state;
  }

  start(): void {
    this.timer = setInterval(() => void this.ping(), this.o.intervalMs);
    this.timer.unref();
  }

  /** A request path waited past its deadline: away until a PING answers in time. */
  suspect(why: string): void {
    this.set(false, why);
  }

  /** A PING now: true when Redis answered it in time (and so is up). */
  async check(): Promise<boolean> {
    try {
      // A probe connection still being made (at start, or reconnecting) is waited for within the timeout: with no
      // offline queue a PING sent now would fail at once, and call Redis away when it is only slow to greet us.
      if (this.probe.status !== 'ready') {
        await new Promise<void>((resolve, reject) => {
          const t = setTimeout(() => {
            this.probe.off('ready', ready);
            reject(new Error(`probe connection ${this.probe.status}`));
          }, this.o.timeoutMs);
          const ready = () => {
            clearTimeout(t);
            resolve();
          };
          this.probe.once('ready', ready);
        });
      }
      await this.probe.ping();
      this.lastAnswerAt = Date.now();
      this.set(true, 'ping answered');
      this.answered = true;
      return true;
    } catch (err) {
      // The engine has just read its index from Redis: a probe connection still being made in its first seconds is
      // slow to greet us, not an outage to announce (and journal for).
      if (!this.answered && this.probe.status !== 'ready' && Date.now() - this.createdAt < FIRST_CONNECT_GRACE_MS)
        return false;
      this.set(false, err instanceof Error ? err.message : String(err));
      return false;
    }
  }

  private async ping(): Promise<void> {
    if (this.pinging) return;
    this.pinging = true;
    await this.check();
    this.pinging = false;
  }

  private set(up: boolean, why: string): void {
    if (up === this.state) return;
    this.state = up;
    if (up) this.upSince = Date.now();
    if (up && this.answered) this.backAt = this.upSince;
    this.o.onChange?.(up, why);
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.probe.disconnect();
  }
}
