import { DEMAND_DAY_TTL_SECONDS, demandDayKey } from '@adnet/schemas/demand';
import type { DemandCounter } from '@adnet/schemas/demand';
import type { CircuitBreaker } from './breaker.ts';

/**
 * Each partner's counts on this engine (requests, bids, wins, timeouts, errors, discards by reason,
 * revenue), added to the shared Redis hash `dmd:stats:<id>` (since the start) and to that of the UTC day
 * (`demandDayKey`, the admin statistics by `demand`) on every flush and reset, so the admin reads the sum
 * over engines. The circuit's state is written beside them (`dmd:circuit`).
 */
export class DemandStats {
  private counts = new Map<number, Map<DemandCounter, number>>();
  private readonly seen = new Set<number>();

  add(partnerId: number, counter: DemandCounter, n = 1): void {
    let m = this.counts.get(partnerId);
    if (!m) this.counts.set(partnerId, (m = new Map<DemandCounter, number>()));
    m.set(counter, (m.get(counter) ?? 0) + n);
    this.seen.add(partnerId);
  }

  /** What is counted and not yet flushed (tests and the benchmark). */
  peek(partnerId: number, counter: DemandCounter): number {
    return this.counts.get(partnerId)?.get(counter) ?? 0;
  }

  async flush(
    redis: {
      multi(): {
        hincrby(k: string, f: string, n: number): unknown;
        hset(k: string, f: string, v: string): unknown;
        expire(k: string, s: number): unknown;
        exec(): Promise<unknown>;
      };
    },
    breaker: CircuitBreaker,
    nowMs = Date.now(),
  ): Promise<void> {
    if (this.seen.size === 0) return;
    const counts = this.counts;
    this.counts = new Map();
    const day = new Date(nowMs).toISOString().slice(0, 10);
    const tx = redis.multi();
    for (const [id, m] of counts) {
      const daily = demandDayKey(id, day);
      for (const [k, n] of m) {
        tx.hincrby(`dmd:stats:${id}`, k, n);
        tx.hincrby(daily, k, n);
      }
      tx.expire(daily, DEMAND_DAY_TTL_SECONDS);
    }
    for (const id of this.seen) tx.hset('dmd:circuit', String(id), breaker.state(id));
    await tx.exec();
  }
}
