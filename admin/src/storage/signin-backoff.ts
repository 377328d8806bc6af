import { createHash } from 'node:crypto';
import type { Result } from 'ioredis';
import { signInBackoffKey } from './keys.ts';
import type { RateDecision } from './rate-limit.ts';
import type { Redis } from './redis.ts';

export interface BackoffRule {
  /** Attempts one network may make on one account without waiting since its last successful sign-in there. */
  freeAttempts: number;
  /** The wait after the first attempt past those; it doubles with each further attempt. */
  baseMs: number;
  maxMs: number;
  /** How long a network's count on an account is kept after its last attempt. */
  forgetMs: number;
  /**
   * Attempts on one account from every network together within `accountWindowMs`; past them only the
   * account's known networks may try until the window ends. Above what one network can make in a
   * window under its own back-off (about 15), so only guessing from several networks reaches it.
   */
  accountAttempts: number;
  accountWindowMs: number;
  /** Networks that signed in to the account: how many are kept (the most recent) and for how long. */
  knownNetworks: number;
  knownForMs: number;
}

export const SIGN_IN_BACKOFF: BackoffRule = {
  freeAttempts: 5,
  baseMs: 1_000,
  maxMs: 15 * 60_000,
  forgetMs: 24 * 3_600_000,
  accountAttempts: 50,
  accountWindowMs: 15 * 60_000,
  knownNetworks: 8,
  knownForMs: 30 * 24 * 3_600_000,
};

// Keys: 1 the network's count on the account, 2 the account's attempts in the window, 3 the account's
// known networks (member: network, score: when it stops being known).
// An attempt is counted before its password is checked, and the wait it earns is set at once:
// parallel guesses cannot all slip through the gap between a check and its failure. Redis' clock, so
// every admin instance agrees.
const TAKE_LUA = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local free = tonumber(ARGV[1])
local base = tonumber(ARGV[2])
local max = tonumber(ARGV[3])
local forget = tonumber(ARGV[4])
local accountMax = tonumber(ARGV[6])
local window = tonumber(ARGV[7])
local known = tonumber(redis.call('ZSCORE', KEYS[3], ARGV[5]) or '0') > now
if not known and tonumber(redis.call('GET', KEYS[2]) or '0') >= accountMax then
  return {0, math.max(1, redis.call('PTTL', KEYS[2])), 2}
end
local n = tonumber(redis.call('HGET', KEYS[1], 'n') or '0')
local untilMs = tonumber(redis.call('HGET', KEYS[1], 'until') or '0')
if untilMs > now then return {0, untilMs - now, 1} end
n = n + 1
if n > free then
  untilMs = now + math.min(max, base * 2 ^ math.min(n - free - 1, 40))
end
redis.call('HSET', KEYS[1], 'n', n, 'until', untilMs)
redis.call('PEXPIRE', KEYS[1], forget + math.max(0, untilMs - now))
if redis.call('INCR', KEYS[2]) == 1 then redis.call('PEXPIRE', KEYS[2], window) end
return {1, 0, 0}
`;

// A right password: the network starts afresh and is known to the account (the oldest known one
// dropped past the bound, so the set stays small whatever happens).
const SUCCESS_LUA = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local keep = tonumber(ARGV[2])
local ttl = tonumber(ARGV[3])
redis.call('DEL', KEYS[1])
redis.call('ZADD', KEYS[2], now + ttl, ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
local extra = redis.call('ZCARD', KEYS[2]) - keep
if extra > 0 then redis.call('ZREMRANGEBYRANK', KEYS[2], 0, extra - 1) end
redis.call('PEXPIRE', KEYS[2], ttl)
return 1
`;

declare module 'ioredis' {
  interface RedisCommander<Context> {
    signInBackoff(numKeys: number, ...args: (string | number)[]): Result<[number, number, number], Context>;
    signInSuccess(numKeys: number, ...args: (string | number)[]): Result<number, Context>;
  }
}

/** Why an attempt was refused: its own network's back-off, or the account-wide limit on unknown networks. */
export type BackoffDecision = RateDecision & { scope?: 'network' | 'account' };

/**
 * Sign-in attempts per account (by email, known or not, so the answer says nothing about which exist)
 * and client network: failures from one network delay only that network, so nobody can keep an owner
 * out by failing on purpose from elsewhere. Guessing spread over many networks meets the account-wide
 * limit, which spares the networks the owner signed in from.
 */
export class SignInBackoff {
  constructor(
    private readonly redis: Redis,
    private readonly rule: BackoffRule = SIGN_IN_BACKOFF,
  ) {
    redis.defineCommand('signInBackoff', { lua: TAKE_LUA });
    redis.defineCommand('signInSuccess', { lua: SUCCESS_LUA });
  }

  /** The account's keys share one hash slot, so the scripts run on a cluster too. */
  private keys(email: string, network: string): { perNetwork: string; account: string; known: string } {
    const base = signInBackoffKey(createHash('sha256').update(email.toLowerCase()).digest('base64url').slice(0, 22));
    return { perNetwork: `${base}:net:${network}`, account: `${base}:all`, known: `${base}:known` };
  }

  /** Counts one attempt from the client's network (`networkSubject`), or refuses it while a wait runs. */
  async take(email: string, network: string): Promise<BackoffDecision> {
    const { freeAttempts, baseMs, maxMs, forgetMs, accountAttempts, accountWindowMs } = this.rule;
    const k = this.keys(email, network);
    const [ok, waitMs, scope] = await this.redis.signInBackoff(
      3,
      k.perNetwork,
      k.account,
      k.known,
      freeAttempts,
      baseMs,
      maxMs,
      forgetMs,
      network,
      accountAttempts,
      accountWindowMs,
    );
    if (ok === 1) return { allowed: true };
    return {
      allowed: false,
      retryAfterSeconds: Math.max(1, Math.ceil(waitMs / 1000)),
      scope: scope === 2 ? 'account' : 'network',
    };
  }

  /** After a correct password (or a followed reset link): the network starts afresh and is known to the account. */
  async succeeded(email: string, network: string): Promise<void> {
    const k = this.keys(email, network);
    await this.redis.signInSuccess(2, k.perNetwork, k.known, network, this.rule.knownNetworks, this.rule.knownForMs);
  }
}
