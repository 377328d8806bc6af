import { createHash } from 'node:crypto';
import type { Result } from 'ioredis';
import { signInBackoffKey } from './keys.ts';
import type { RateDecision } from './rate-limit.ts';
import type { Redis } from './redis.ts';

export interface BackoffRule {
  /** Attempts allowed without waiting since the last successful sign-in. */
  freeAttempts: number;
  /** The wait after the first attempt past those; it doubles with each further attempt. */
  baseMs: number;
  maxMs: number;
  /** How long an account's count is kept after its last attempt. */
  forgetMs: number;
}

export const SIGN_IN_BACKOFF: BackoffRule = { freeAttempts: 5, baseMs: 1_000, maxMs: 15 * 60_000, forgetMs: 24 * 3_600_000 };

// An attempt is counted before its password is checked, and the wait it earns is set at once:
// parallel guesses cannot all slip through the gap between a check and its failure. A successful
// sign-in clears the count. Redis' clock, so every admin instance agrees.
const TAKE_LUA = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local free = tonumber(ARGV[1])
local base = tonumber(ARGV[2])
local max = tonumber(ARGV[3])
local forget = tonumber(ARGV[4])
local n = tonumber(redis.call('HGET', KEYS[1], 'n') or '0')
local untilMs = tonumber(redis.call('HGET', KEYS[1], 'until') or '0')
if untilMs > now then return {0, untilMs - now} end
n = n + 1
if n > free then
  untilMs = now + math.min(max, base * 2 ^ math.min(n - free - 1, 40))
end
redis.call('HSET', KEYS[1], 'n', n, 'until', untilMs)
redis.call('PEXPIRE', KEYS[1], forget + math.max(0, untilMs - now))
return {1, 0}
`;

declare module 'ioredis' {
  interface RedisCommander<Context> {
    signInBackoff(numKeys: number, ...args: (string | number)[]): Result<[number, number], Context>;
  }
}

/** Sign-in attempts per account (by email, known or not, so the answer says nothing about which exist). */
export class SignInBackoff {
  constructor(
    private readonly redis: Redis,
    private readonly rule: BackoffRule = SIGN_IN_BACKOFF,
  ) {
    redis.defineCommand('signInBackoff', { lua: TAKE_LUA });
  }

  private key(email: string): string {
    return signInBackoffKey(createHash('sha256').update(email.toLowerCase()).digest('base64url').slice(0, 22));
  }

  /** Counts one attempt, or refuses it while the account's wait runs. */
  async take(email: string): Promise<RateDecision> {
    const { freeAttempts, baseMs, maxMs, forgetMs } = this.rule;
    const [ok, waitMs] = await this.redis.signInBackoff(1, this.key(email), freeAttempts, baseMs, maxMs, forgetMs);
    return ok === 1 ? { allowed: true } : { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil(waitMs / 1000)) };
  }

  /** After a correct password: the account starts afresh. */
  async clear(email: string): Promise<void> {
    await this.redis.del(this.key(email));
  }
}
