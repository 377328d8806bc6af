import type { Redis } from 'ioredis';
import type { PopCaps } from '../auction/ports.ts';

/**
 * One pop per visitor and zone within the zone's cap, shared by every engine: a key that expires with the
 * cap, set only if absent, so two engines taking the same visitor's pop at once give it to one of them.
 */
export class RedisPopCaps implements PopCaps {
  constructor(private readonly redis: Redis) {}

  async take(zoneId: number, viewer: string, capHours: number): Promise<boolean> {
    const set = await this.redis.set(`pop:{${zoneId}}:${viewer}`, '1', 'EX', Math.max(1, capHours) * 3600, 'NX');
    return set === 'OK';
  }
}
