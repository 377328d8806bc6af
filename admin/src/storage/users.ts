import type { Role } from '@adnet/schemas/api';
import { USERS_BY_EMAIL, USERS_BY_POSTBACK_SECRET, USERS_BY_ROLE, idCounter, userKey } from './keys.ts';
import type { Redis } from './redis.ts';
import type { Result } from 'ioredis';

export interface UserRecord {
  id: number;
  email: string;
  role: Role;
  passwordHash: string;
  postbackSecret: string;
  postbackUrl: string | null;
  createdAt: string;
  /** When the owner followed the verification link; undefined until then. */
  emailVerifiedAt?: string;
}

// Claims the email and writes the user in one step, so two sign-ups with one
// email cannot both succeed.
const CREATE_LUA = `
if redis.call('HSETNX', KEYS[1], ARGV[1], ARGV[2]) == 0 then return 0 end
redis.call('HSET', KEYS[2], 'id', ARGV[2], 'email', ARGV[1], 'role', ARGV[3], 'pw', ARGV[4], 'pbs', ARGV[5], 'pbu', '', 'created', ARGV[6])
redis.call('ZADD', KEYS[3], ARGV[2], ARGV[2])
redis.call('HSET', KEYS[4], ARGV[5], ARGV[2])
return 1
`;

// A password hash is replaced only if it is still the one the caller checked: a rehash at sign-in
// never undoes a password change made at the same moment.
const REPLACE_PW_LUA = `
if redis.call('HGET', KEYS[1], 'pw') ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'pw', ARGV[2])
return 1
`;

declare module 'ioredis' {
  interface RedisCommander<Context> {
    userCreate(numKeys: number, ...args: (string | number)[]): Result<number, Context>;
    userReplacePassword(numKeys: number, ...args: (string | number)[]): Result<number, Context>;
  }
}

function fromHash(h: Record<string, string>): UserRecord | undefined {
  if (!h.id) return undefined;
  return {
    id: Number(h.id),
    email: h.email ?? '',
    role: h.role as Role,
    passwordHash: h.pw ?? '',
    postbackSecret: h.pbs ?? '',
    postbackUrl: h.pbu ? h.pbu : null,
    createdAt: h.created ?? '',
    ...(h.ev ? { emailVerifiedAt: h.ev } : {}),
  };
}

export class UserStore {
  constructor(private readonly redis: Redis) {
    redis.defineCommand('userCreate', { lua: CREATE_LUA });
    redis.defineCommand('userReplacePassword', { lua: REPLACE_PW_LUA });
  }

  /** Returns undefined when the email is taken. */
  async create(input: Omit<UserRecord, 'id' | 'createdAt' | 'postbackUrl'>): Promise<UserRecord | undefined> {
    const id = await this.redis.incr(idCounter('user'));
    const createdAt = new Date().toISOString();
    const ok = await this.redis.userCreate(
      4,
      USERS_BY_EMAIL,
      userKey(id),
      USERS_BY_ROLE(input.role),
      USERS_BY_POSTBACK_SECRET,
      input.email,
      id,
      input.role,
      input.passwordHash,
      input.postbackSecret,
      createdAt,
    );
    return ok === 1 ? { ...input, id, createdAt, postbackUrl: null } : undefined;
  }

  async get(id: number): Promise<UserRecord | undefined> {
    return fromHash(await this.redis.hgetall(userKey(id)));
  }

  async getByEmail(email: string): Promise<UserRecord | undefined> {
    const id = await this.redis.hget(USERS_BY_EMAIL, email);
    return id ? this.get(Number(id)) : undefined;
  }

  async listByRole(role: Role, offset: number, limit: number): Promise<UserRecord[]> {
    const ids = await this.redis.zrange(USERS_BY_ROLE(role), offset, offset + limit - 1);
    const users = await Promise.all(ids.map((id) => this.get(Number(id))));
    return users.filter((u): u is UserRecord => u !== undefined);
  }

  /** False when the stored hash is no longer `expected` (changed meanwhile). */
  async replacePasswordHash(id: number, expected: string, next: string): Promise<boolean> {
    return (await this.redis.userReplacePassword(1, userKey(id), expected, next)) === 1;
  }

  /** Single-field writes: concurrent profile edits of different fields never undo each other. */
  /** Replaces the secret and its lookup entry in one transaction: the old secret stops working at once. */
  async setPostbackSecret(id: number, secret: string): Promise<void> {
    const old = await this.redis.hget(userKey(id), 'pbs');
    const tx = this.redis.multi().hset(userKey(id), 'pbs', secret).hset(USERS_BY_POSTBACK_SECRET, secret, id);
    if (old) tx.hdel(USERS_BY_POSTBACK_SECRET, old);
    await tx.exec();
  }

  async getByPostbackSecret(secret: string): Promise<UserRecord | undefined> {
    const id = await this.redis.hget(USERS_BY_POSTBACK_SECRET, secret);
    return id ? this.get(Number(id)) : undefined;
  }

  async setPostbackUrl(id: number, url: string | null): Promise<void> {
    await this.redis.hset(userKey(id), 'pbu', url ?? '');
  }

  /** Only the first verification counts. */
  async markEmailVerified(id: number, at = new Date().toISOString()): Promise<void> {
    await this.redis.hsetnx(userKey(id), 'ev', at);
  }
}
