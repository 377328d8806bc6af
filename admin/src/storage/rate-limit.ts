import { rateKey } from './keys.ts';
import type { Redis } from './redis.ts';
import type { Result } from 'ioredis';

// GCRA (generic cell rate algorithm): one key per subject holding the
// "theoretical arrival time". It allows `limit` requests in a burst, then one
// every period/limit, and tells exactly when the next one is allowed. Redis'
// clock is used so every admin instance agrees.
const GCRA_LUA = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local interval = tonumber(ARGV[1])
local tolerance = tonumber(ARGV[2])
local tat = tonumber(redis.call('GET', KEYS[1]) or '0')
if tat < now then tat = now end
local new_tat = tat + interval
local allow_at = new_tat - tolerance
if allow_at > now then return {0, allow_at - now} end
redis.call('SET', KEYS[1], new_tat, 'PX', new_tat - now)
return {1, 0}
`;

declare module 'ioredis' {
  interface RedisCommander<Context> {
    gcra(numKeys: number, ...args: (string | number)[]): Result<[number, number], Context>;
  }
}

export type RateDecision = { allowed: true } | { allowed: false; retryAfterSeconds: number };

export class RateLimiter {
  constructor(private readonly redis: Redis) {
    redis.defineCommand('gcra', { lua: GCRA_LUA });
  }

  /** `limit` requests per `periodMs` for `subject`. */
  async take(subject: string, limit: number, periodMs: number): Promise<RateDecision> {
    const [ok, waitMs] = await this.redis.gcra(1, rateKey(subject), Math.ceil(periodMs / limit), periodMs);
    return ok === 1 ? { allowed: true } : { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil(waitMs / 1000)) };
  }
}
