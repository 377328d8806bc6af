import { DEMAND_COUNTERS } from '@adnet/schemas/demand';
import type { StatsQuery } from '@adnet/schemas/stats';
import { readDailyCounters } from '../stats/demand-counters.ts';
import type { DailyCounters } from '../stats/demand-counters.ts';
import type { Redis } from './redis.ts';

export type Circuit = 'closed' | 'open' | 'half_open';

/**
 * What the engines count of each demand partner (engine/src/demand/demand-stats.ts writes `dmd:stats:<id>`,
 * the per-day hashes and `dmd:circuit`); the admin only reads them.
 */
export class DemandHealth {
  constructor(private readonly redis: Redis) {}

  /** Each partner's counts since the start, summed over engines, and its circuit (closed when none is written). */
  async of(ids: readonly number[]): Promise<Map<number, { counters: Record<string, number>; circuit: Circuit }>> {
    const circuits = await this.redis.hgetall('dmd:circuit');
    const out = new Map<number, { counters: Record<string, number>; circuit: Circuit }>();
    await Promise.all(
      ids.map(async (id) => {
        const raw = await this.redis.hgetall(`dmd:stats:${id}`);
        const c = circuits[String(id)];
        out.set(id, {
          counters: Object.fromEntries(DEMAND_COUNTERS.map((k) => [k, Number(raw[k] ?? 0)])),
          circuit: c === 'open' || c === 'half_open' ? c : 'closed',
        });
      }),
    );
    return out;
  }

  /** The per-day auction counters of the query's days. */
  daily(ids: readonly number[], q: StatsQuery): Promise<DailyCounters> {
    return readDailyCounters(this.redis, ids, q);
  }
}
