import { markMoved } from '@adnet/runtime/moved-marks';
import { campaignPoolKey, campaignTotalKey } from './keys.ts';
import type { Redis } from './redis.ts';

/**
 * The budget pools and lifetime totals the engines count in Redis (engine/src/budget/): the admin reads them for
 * the campaigns' delivery and writes them only to rebuild a day's spend from the event store. Nano-dollars.
 */
export class CampaignSpend {
  constructor(private readonly redis: Redis) {}

  /**
   * Each campaign's whole pool hash for the budget day, in the order of `campaignIds`: besides `spent`, the
   * engines' holds (`held`, `e:<engine>`). One read per key, since pools live in per-campaign cluster slots.
   */
  pools(campaignIds: readonly number[], day: string): Promise<Record<string, string>[]> {
    return Promise.all(campaignIds.map((id) => this.redis.hgetall(campaignPoolKey(id, day))));
  }

  /** Each campaign's lifetime spend, in the order of `campaignIds` (null: none yet). */
  lifetime(campaignIds: readonly number[]): Promise<(string | null)[]> {
    return Promise.all(campaignIds.map((id) => this.redis.hget(campaignTotalKey(id), 'spent')));
  }

  /** Sets each campaign's spend for the day, then marks them moved so that the engines' pacers read it. */
  async rebuildDay(day: string, spent: readonly { campaignId: number; spent: string }[]): Promise<void> {
    await Promise.all(spent.map((r) => this.redis.hset(campaignPoolKey(r.campaignId, day), 'spent', r.spent)));
    await markMoved(
      this.redis,
      'spent',
      spent.map((r) => r.campaignId),
    );
  }
}
