import type { Redis } from 'ioredis';
import { cfgIndex } from './keys.ts';

/** The publishers who asked sellers.json not to name them (IAB sellers.json 1.0 `is_confidential`). */
export const SELLERS_CONFIDENTIAL = cfgIndex('sellers', 'confidential');

/** Who is listed confidential: a set of publisher ids beside the config, not on the user record. */
export class ConfidentialSellers {
  constructor(private readonly redis: Redis) {}

  async all(): Promise<Set<string>> {
    return new Set(await this.redis.smembers(SELLERS_CONFIDENTIAL));
  }

  async has(publisherId: number): Promise<boolean> {
    return (await this.redis.sismember(SELLERS_CONFIDENTIAL, String(publisherId))) === 1;
  }

  async set(publisherId: number, confidential: boolean): Promise<void> {
    if (confidential) await this.redis.sadd(SELLERS_CONFIDENTIAL, String(publisherId));
    else await this.redis.srem(SELLERS_CONFIDENTIAL, String(publisherId));
  }
}
