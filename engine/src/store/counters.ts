import { countedKey } from '@adnet/schemas/redis-keys';
import { CLICK_TTL_S, clickKey, encodeClickRecord } from '@adnet/schemas/wire/click-record';
import type { ClickRecord } from '@adnet/schemas/wire/click-record';
import type { Redis } from 'ioredis';
import type { Counters } from '../auction/ports.ts';

/** Win notices, pixels and clicks are honoured once for a week after the bid. */
const COUNT_TTL_S = 7 * 86_400;

/** The Counters port on Redis: SET NX marks, JSON click records, per-minute INCR counters. */
export class RedisCounters implements Counters {
  constructor(private readonly redis: Redis) {}

  async countOnce(kind: 'win' | 'imp' | 'click', id: string): Promise<boolean> {
    // The value is when it was counted: a click on the ad is judged by the time since its impression.
    return (await this.redis.set(countedKey(kind, id), String(Date.now()), 'EX', COUNT_TTL_S, 'NX')) === 'OK';
  }

  async countedAt(kind: 'win' | 'imp' | 'click', id: string): Promise<number | undefined> {
    const v = await this.redis.get(countedKey(kind, id));
    return v === null ? undefined : Number(v);
  }

  async saveClick(clickId: string, record: ClickRecord, replace: boolean): Promise<void> {
    if (replace) await this.redis.set(clickKey(clickId), encodeClickRecord(record), 'EX', CLICK_TTL_S);
    else await this.redis.set(clickKey(clickId), encodeClickRecord(record), 'EX', CLICK_TTL_S, 'NX');
  }

  async clicksThisMinute(fingerprint: string, nowMs: number): Promise<number> {
    const key = `clicks:fp:{${fingerprint}}:${Math.floor(nowMs / 60_000)}`;
    const [[err, n] = [null, 0]] = (await this.redis.multi().incr(key).expire(key, 120).exec()) ?? [];
    if (err) throw err;
    return n as number;
  }
}
