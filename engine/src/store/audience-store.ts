import {
  ADD_MEMBERSHIPS,
  audienceMembersKey,
  decodeMemberships,
  membershipArgs,
} from '@adnet/schemas/wire/audience-members';
import type { Redis, Result } from 'ioredis';
import type { AudienceStore, Membership } from '../auction/ports.ts';
import { defineRequestScript } from './send-at-once.ts';

declare module 'ioredis' {
  interface RedisCommander<Context> {
    audienceAdd(numKeys: number, ...args: (string | number)[]): Result<number, Context>;
  }
}

/** Every engine's view of the visitors' audience memberships, in Redis. */
export class RedisAudienceStore implements AudienceStore {
  constructor(private readonly redis: Redis) {
    // One call per counted event of a watched campaign, or per pixel hit.
    defineRequestScript(redis, 'audienceAdd', ADD_MEMBERSHIPS);
  }

  async read(userKey: string): Promise<Map<number, number>> {
    return decodeMemberships(await this.redis.hgetall(audienceMembersKey(userKey)));
  }

  async add(userKey: string, memberships: readonly Membership[], now: number): Promise<void> {
    await this.redis.audienceAdd(1, audienceMembersKey(userKey), now, ...membershipArgs(memberships));
  }
}
