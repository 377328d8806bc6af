import { createHash, randomBytes } from 'node:crypto';
import type { Redis } from './redis.ts';

export type OneTimePurpose = 'reset' | 'verify';

export interface OneTimeClaim {
  userId: number;
  /** What the token was bound to when made (a digest of the password hash, or the email). */
  bind: string;
}

const key = (purpose: OneTimePurpose, digest: string): string => `ott:${purpose}:${digest}`;
const digestOf = (token: string): string => createHash('sha256').update(token).digest('hex');

/**
 * The tokens of emailed links: 32 random bytes, only their sha256 stored, each usable once (GETDEL
 * takes it, so two uses at the same moment cannot both succeed) and only until it expires.
 */
export class OneTimeTokens {
  constructor(private readonly redis: Redis) {}

  async mint(
    purpose: OneTimePurpose,
    userId: number,
    { bind, ttlSeconds, now = Date.now() }: { bind: string; ttlSeconds: number; now?: number },
  ): Promise<string> {
    const token = randomBytes(32).toString('base64url');
    const expiresAt = now + ttlSeconds * 1000;
    await this.redis.set(key(purpose, digestOf(token)), `${userId}|${expiresAt}|${bind}`, 'PXAT', expiresAt);
    return token;
  }

  /** The claim, or undefined for a token unknown, used, expired or malformed. Either way it is gone after. */
  async consume(purpose: OneTimePurpose, token: string, now = Date.now()): Promise<OneTimeClaim | undefined> {
    const raw = await this.redis.getdel(key(purpose, digestOf(token)));
    if (!raw) return undefined;
    const [uid, exp, ...rest] = raw.split('|');
    if (!(Number(exp) > now)) return undefined;
    return { userId: Number(uid), bind: rest.join('|') };
  }
}

/** What a reset token is bound to: once the password changes, links made before stop working. */
export const passwordBinding = (passwordHash: string): string =>
  createHash('sha256').update(passwordHash).digest('hex').slice(0, 32);
