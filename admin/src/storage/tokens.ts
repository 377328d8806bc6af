import { hashOpaque, newOpaque, parseToken, sameHash } from '../auth/token-format.ts';
import type { Role } from '@adnet/schemas/api';
import { idCounter, tokenKey } from './keys.ts';
import type { Redis } from './redis.ts';

export interface Session {
  tokenId: string;
  userId: number;
  role: Role;
  expiresAt: number;
}

export type TokenCheck = { ok: true; session: Session } | { ok: false; reason: 'invalid' | 'expired' };

export class TokenStore {
  constructor(private readonly redis: Redis) {}

  async issue(userId: number, role: Role, ttlSeconds: number, now = Date.now()): Promise<{ token: string; expiresAt: number }> {
    const id = String(await this.redis.incr(idCounter('token')));
    const opaque = newOpaque();
    const expiresAt = now + ttlSeconds * 1000;
    // Kept a day past expiry so an expired token reads "expired", not "invalid".
    await this.redis
      .multi()
      .hset(tokenKey(id), 'uid', userId, 'role', role, 'h', hashOpaque(opaque), 'exp', expiresAt)
      .pexpireat(tokenKey(id), expiresAt + 86_400_000)
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
    return { ok: true, session: { tokenId: parsed.id, userId: Number(rec.uid), role: rec.role as Role, expiresAt } };
  }

  async revoke(tokenId: string): Promise<void> {
    await this.redis.del(tokenKey(tokenId));
  }
}
