import type { Redis } from 'ioredis';
import type { PopCaps } from '../auction/ports.ts';

const key = (zoneId: number, viewer: string) => `pop:{${zoneId}}:${viewer}`;

/**
 * One pop per visitor and zone within the zone's cap, shared by every engine: a key that expires with the
 * cap, set only if absent, so two engines taking the same visitor's pop at once give it to one of them.
 */
export class RedisPopCaps implements PopCaps {
  constructor(private readonly redis: Redis) {}

  async take(zoneId: number, viewer: string, capHours: number, holder?: string): Promise<boolean> {
    const k = key(zoneId, viewer);
    const set = await this.redis.set(k, holder ?? '1', 'EX', Math.max(1, capHours) * 3600, 'NX');
    if (set === 'OK') return true;
    // The same holder asking again (a beacon replayed from the request journal after its first run broke off)
    // finds the pop its own: the ticket's once-only marks, not the cap, keep it from counting twice.
    return holder !== undefined && (await this.redis.get(k)) === holder;
  }

  async held(zoneId: number, viewer: string): Promise<boolean> {
    return (await this.redis.exists(key(zoneId, viewer))) === 1;
  }
}
