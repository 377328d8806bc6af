import { hashOpaque, newOpaque, parseToken, sameHash } from '../auth/token-format.ts';
import type { ApiKeyScope } from '@adnet/schemas/accounts';
import type { Role } from '@adnet/schemas/api';
import { idCounter, tokenKey, userKey } from './keys.ts';
import type { Redis } from './redis.ts';

export interface Session {
  tokenId: string;
  userId: number;
  role: Role;
  expiresAt: number;
  /** Set when the bearer was an API key (tokenId is then `key:<id>`); its scopes bound what it may call. */
  apiKey?: { id: number; scopes: readonly ApiKeyScope[] };
}

export type TokenCheck = { ok: true; session: Session } | { ok: false; reason: 'invalid' | 'expired' };

/** The account's token generation: a token is valid only while its own is not below it (absent reads 0). */
const GENERATION = 'tgen';

/**
 * Bearer tokens. Revoking every token of an account raises the account's token generation, one write
 * however many tokens it has (tokens issued before generations existed count as generation 0).
 */
export class TokenStore {
  constructor(private readonly redis: Redis) {}

  async issue(
    userId: number,
    role: Role,
    ttlSeconds: number,
    now = Date.now(),
  ): Promise<{ token: string; expiresAt: number }> {
    const [id, generation] = await Promise.all([
      this.redis.incr(idCounter('token')),
      this.redis.hget(userKey(userId), GENERATION),
    ]);
    const opaque = newOpaque();
    const expiresAt = now + ttlSeconds * 1000;
    // Kept a day past expiry so an expired token reads "expired", not "invalid".
    await this.redis
      .multi()
      .hset(
        tokenKey(String(id)),
        'uid',
        userId,
        'role',
        role,
        'h',
        hashOpaque(opaque),
        'exp',
        expiresAt,
        'g',
        Number(generation ?? 0),
      )
      .pexpireat(tokenKey(String(id)), expiresAt + 86_400_000)
      .exec();
    return { token: `${id}|${opaque}`, expiresAt };
  }

  async check(token: string, now = Date.now()): Promise<TokenCheck> {
    const parsed = parseToken(token);
    if (!parsed) return { ok: false, reason: 'invalid' };
    const rec = await this.redis.hgetall(tokenKey(parsed.id));
    if (!rec.h || !sameHash(rec.h, hashOpaque(parsed.opaque))) return { ok: false, reason: 'invalid' };
    const expiresAt = Number(rec.exp);
    if (!(expiresAt > now)) return { ok: false, reason: 'expired' };
    const userId = Number(rec.uid);
    const generation = Number((await this.redis.hget(userKey(userId), GENERATION)) ?? 0);
    if (Number(rec.g ?? 0) < generation) return { ok: false, reason: 'invalid' };
    return { ok: true, session: { tokenId: parsed.id, userId, role: rec.role as Role, expiresAt } };
  }

  async revoke(tokenId: string): Promise<void> {
    await this.redis.del(tokenKey(tokenId));
  }

  /** Every token of the account stops working at once. */
  async revokeAll(userId: number): Promise<void> {
    await this.redis.hincrby(userKey(userId), GENERATION, 1);
  }

  /**
   * Every token of the account but `keepTokenId` stops working. The kept token moves to the next
   * generation before the account does, so it is valid throughout.
   */
  async revokeOthers(userId: number, keepTokenId: string): Promise<void> {
    const next = Number((await this.redis.hget(userKey(userId), GENERATION)) ?? 0) + 1;
    await this.redis.hset(tokenKey(keepTokenId), 'g', next);
    const reached = await this.redis.hincrby(userKey(userId), GENERATION, 1);
    // Another revocation ran in between: follow it, still keeping this token.
    if (reached !== next) await this.redis.hset(tokenKey(keepTokenId), 'g', reached);
  }
}
