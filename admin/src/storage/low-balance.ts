import { userKey } from './keys.ts';
import type { Redis } from './redis.ts';

/** Advertisers who set a low-balance threshold: the watch looks at these only. */
const WATCHED = '{users}:lowbal';
const THRESHOLD = 'lbt';
/** Set while the account is below its threshold and has been told. */
const NOTIFIED = 'lbn';

export class LowBalanceStore {
  constructor(private readonly redis: Redis) {}

  async get(userId: number): Promise<number | null> {
    const v = await this.redis.hget(userKey(userId), THRESHOLD);
    return v === null ? null : Number(v);
  }

  /** A new threshold starts afresh: the next look decides against it. */
  async set(userId: number, cents: number | null): Promise<void> {
    const tx = this.redis.multi().hdel(userKey(userId), NOTIFIED);
    if (cents === null) tx.hdel(userKey(userId), THRESHOLD).srem(WATCHED, userId);
    else tx.hset(userKey(userId), THRESHOLD, cents).sadd(WATCHED, userId);
    await tx.exec();
  }

  /** One page of the watched accounts with their threshold and whether they were told. */
  async scan(
    cursor: string,
  ): Promise<{ next: string; accounts: { userId: number; thresholdCents: number; notified: boolean }[] }> {
    const [next, ids] = await this.redis.sscan(WATCHED, cursor, 'COUNT', 200);
    const accounts = [];
    for (const id of ids) {
      const [threshold, notified] = await this.redis.hmget(userKey(Number(id)), THRESHOLD, NOTIFIED);
      if (threshold !== null)
        accounts.push({ userId: Number(id), thresholdCents: Number(threshold), notified: notified !== null });
    }
    return { next, accounts };
  }

  /** True for the one instance that marks the account told (several admins may look at once). */
  async claimNotice(userId: number): Promise<boolean> {
    return (await this.redis.hsetnx(userKey(userId), NOTIFIED, Date.now())) === 1;
  }

  async rearm(userId: number): Promise<void> {
    await this.redis.hdel(userKey(userId), NOTIFIED);
  }
}
