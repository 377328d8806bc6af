import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { ApiKey, ApiKeyScope } from '@adnet/schemas/accounts';
import { API_KEY_SCOPES } from '@adnet/schemas/accounts';
import type { Role } from '@adnet/schemas/api';
import { idCounter, userKey } from './keys.ts';
import type { Redis } from './redis.ts';

/** `adn_<id>_<43 base64url>`: the prefix tells a leaked key at a glance (and to secret scanners), the id finds its record. */
const KEY_RE = /^adn_(\d{1,15})_([A-Za-z0-9_-]{43})$/;
export const API_KEY_PREFIX = 'adn_';
/** Keys a user may hold at once. */
export const MAX_KEYS_PER_USER = 50;

// In the {users} slot beside the account, so creating and revoking are one transaction on a cluster too.
const recordKey = (id: string | number): string => `{users}:ak:${id}`;
const userKeysKey = (userId: number): string => `{users}:aks:${userId}`;
/** The account's token generation (storage/tokens.ts): a key made before a sign-out everywhere is revoked by it. */
const GENERATION = 'tgen';
/** Last-used time is written at most this often per key, not on every request. */
const TOUCH_EVERY_MS = 60_000;

const digest = (secret: string): Buffer => createHash('sha256').update(secret).digest();

export interface KeyPrincipal {
  keyId: number;
  userId: number;
  role: Role;
  scopes: readonly ApiKeyScope[];
}

export type KeyCheck = { ok: true; key: KeyPrincipal } | { ok: false };

const parseScopes = (s: string | undefined): ApiKeyScope[] =>
  (s ?? '').split(',').filter((x): x is ApiKeyScope => (API_KEY_SCOPES as readonly string[]).includes(x));

function toApiKey(id: string, h: Record<string, string>): ApiKey {
  return {
    id: Number(id),
    name: h.name ?? '',
    scopes: parseScopes(h.scopes),
    prefix: `${API_KEY_PREFIX}${id}_${h.hint ?? ''}…`,
    created_at: h.created ?? '',
    last_used_at: h.used ? new Date(Number(h.used)).toISOString() : null,
  };
}

/** API keys: only sha256 of the secret is stored (32 random bytes, so a fast hash is enough). */
export class ApiKeyStore {
  constructor(private readonly redis: Redis) {}

  static looksLikeKey(bearer: string): boolean {
    return bearer.startsWith(API_KEY_PREFIX);
  }

  async create(
    userId: number,
    role: Role,
    name: string,
    scopes: readonly ApiKeyScope[],
  ): Promise<{ key: string; record: ApiKey } | undefined> {
    if ((await this.redis.scard(userKeysKey(userId))) >= MAX_KEYS_PER_USER) return undefined;
    const [id, generation] = await Promise.all([
      this.redis.incr(idCounter('apikey')),
      this.redis.hget(userKey(userId), GENERATION),
    ]);
    const secret = randomBytes(32).toString('base64url');
    const created = new Date().toISOString();
    const fields = {
      uid: userId,
      role,
      name,
      scopes: scopes.join(','),
      h: digest(secret).toString('hex'),
      hint: secret.slice(0, 4),
      created,
      g: Number(generation ?? 0),
    };
    await this.redis.multi().hset(recordKey(id), fields).sadd(userKeysKey(userId), id).exec();
    return {
      key: `${API_KEY_PREFIX}${id}_${secret}`,
      record: toApiKey(String(id), { ...fields, uid: String(userId), g: String(fields.g) }),
    };
  }

  async check(bearer: string, now = Date.now()): Promise<KeyCheck> {
    const m = KEY_RE.exec(bearer);
    if (!m) return { ok: false };
    const id = m[1] as string;
    const rec = await this.redis.hgetall(recordKey(id));
    if (!rec.h) return { ok: false };
    const want = Buffer.from(rec.h, 'hex');
    const got = digest(m[2] as string);
    if (want.length !== got.length || !timingSafeEqual(want, got)) return { ok: false };
    const userId = Number(rec.uid);
    const generation = Number((await this.redis.hget(userKey(userId), GENERATION)) ?? 0);
    if (Number(rec.g ?? 0) < generation) return { ok: false };
    if (!(Number(rec.used ?? 0) > now - TOUCH_EVERY_MS))
      void this.redis.hset(recordKey(id), 'used', now).catch(() => undefined);
    return { ok: true, key: { keyId: Number(id), userId, role: rec.role as Role, scopes: parseScopes(rec.scopes) } };
  }

  /** The account's working keys, oldest first; keys a sign-out everywhere revoked are cleared away here. */
  async list(userId: number): Promise<ApiKey[]> {
    const ids = (await this.redis.smembers(userKeysKey(userId))).sort((a, b) => Number(a) - Number(b));
    const generation = Number((await this.redis.hget(userKey(userId), GENERATION)) ?? 0);
    const out: ApiKey[] = [];
    for (const id of ids) {
      const rec = await this.redis.hgetall(recordKey(id));
      if (!rec.h || Number(rec.g ?? 0) < generation) {
        await this.redis.multi().del(recordKey(id)).srem(userKeysKey(userId), id).exec();
        continue;
      }
      out.push(toApiKey(id, rec));
    }
    return out;
  }

  /** False when the account has no such key. */
  async revoke(userId: number, id: number): Promise<boolean> {
    if (!(await this.redis.sismember(userKeysKey(userId), id))) return false;
    await this.redis.multi().del(recordKey(id)).srem(userKeysKey(userId), id).exec();
    return true;
  }
}
