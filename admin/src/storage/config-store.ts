import type { ConfigKind } from '@adnet/schemas/changes';
import { pack as encode, unpack as decode } from '@adnet/schemas/wire/msgpack';
import { CFG_LOG, CFG_NOTICE_CHANNEL, cfgHash, cfgRevHash, idCounter } from './keys.ts';
import type { Redis } from './redis.ts';
import type { Result } from 'ioredis';

/** A secondary-index change applied in the same atomic step as the entity write. */
export interface IndexOp {
  cmd: 'SADD' | 'SREM' | 'ZADD' | 'ZREM';
  key: string;
  member: string | number;
  score?: number;
}

// One script writes the entity, bumps its revision, applies index changes and
// appends the change-log entry, so an engine replaying the log can never see a
// write without its entry or an entry without its write. A revision mismatch
// (another writer got there first) returns nil and the caller retries.
const COMMIT_LUA = `
local cur = tonumber(redis.call('HGET', KEYS[2], ARGV[2]) or '0')
if cur ~= tonumber(ARGV[3]) then return false end
if ARGV[6] == 'put' then redis.call('HSET', KEYS[1], ARGV[2], ARGV[4]) else redis.call('HDEL', KEYS[1], ARGV[2]) end
redis.call('HSET', KEYS[2], ARGV[2], cur + 1)
local i = 7
while i <= #ARGV do
  local key = KEYS[tonumber(ARGV[i + 1])]
  if ARGV[i] == 'ZADD' then redis.call('ZADD', key, ARGV[i + 3], ARGV[i + 2])
  else redis.call(ARGV[i], key, ARGV[i + 2]) end
  i = i + 4
end
return redis.call('XADD', KEYS[3], 'MAXLEN', '~', ARGV[5], '*', 'k', ARGV[1], 'id', ARGV[2], 'op', ARGV[6], 'rev', cur + 1, 'v', ARGV[4])
`;

declare module 'ioredis' {
  interface RedisCommander<Context> {
    cfgCommit(numKeys: number, ...args: (string | number | Buffer)[]): Result<string | null, Context>;
  }
}

export interface Versioned<T> {
  value: T;
  rev: number;
}

export class ConflictError extends Error {}

/** One write of an entity: applied only while its stored revision is still `expectedRev` (0 = new). */
export interface ConfigChange {
  expectedRev: number;
  value: unknown;
  /** Index entries written with it, in the same transaction. */
  ops?: IndexOp[];
}

export class ConfigStore {
  constructor(
    private readonly redis: Redis,
    private readonly logMaxLen: number,
  ) {
    redis.defineCommand('cfgCommit', { lua: COMMIT_LUA });
  }

  nextId(kind: string): Promise<number> {
    return this.redis.incr(idCounter(kind));
  }

  async read<T>(kind: ConfigKind, id: number): Promise<Versioned<T> | undefined> {
    const [blob, rev] = await Promise.all([
      this.redis.hgetBuffer(cfgHash(kind), String(id)),
      this.redis.hget(cfgRevHash(kind), String(id)),
    ]);
    return blob ? { value: decode<T>(blob), rev: Number(rev ?? 0) } : undefined;
  }

  async readMany<T>(kind: ConfigKind, ids: readonly (number | string)[]): Promise<T[]> {
    return (await this.readEach<T>(kind, ids)).filter((v) => v !== undefined);
  }

  /** Each entity in the order of `ids`, undefined where there is none. */
  async readEach<T>(kind: ConfigKind, ids: readonly (number | string)[]): Promise<(T | undefined)[]> {
    if (ids.length === 0) return [];
    const blobs = await this.redis.hmgetBuffer(cfgHash(kind), ...ids.map(String));
    return blobs.map((b) => (b === null ? undefined : decode<T>(b)));
  }

  /**
   * In one round trip, which of `names` are claimed in the hash `namesKey` (`claim`; null where not) and which
   * of `ids` of `kind` exist: what a list naming zones by subid and sites by id is checked against.
   */
  async known(
    namesKey: string,
    names: readonly string[],
    kind: ConfigKind,
    ids: readonly number[],
  ): Promise<{ claimants: (string | null)[]; exists: boolean[] }> {
    const pipe = this.redis.pipeline();
    if (names.length) pipe.hmget(namesKey, ...names);
    for (const id of ids) pipe.hexists(cfgHash(kind), String(id));
    const replies = ((await pipe.exec()) ?? []).map(([err, v]) => {
      if (err) throw err;
      return v;
    });
    const claimants = names.length ? (replies.shift() as (string | null)[]) : [];
    return { claimants, exists: ids.map((_, i) => replies[i] !== 0) };
  }

  /** Every entity an index set names (`cfgIndex(..., 'all')` and the like), in no particular order. */
  async readIndexed<T>(kind: ConfigKind, indexKey: string): Promise<T[]> {
    return this.readMany<T>(kind, await this.redis.smembers(indexKey));
  }

  /** The first `count` ids of a sorted-set index (a review queue), lowest score first. */
  async ranked(indexKey: string, count: number): Promise<string[]> {
    return this.redis.zrange(indexKey, 0, count - 1);
  }

  /** The ids an index set names. */
  async indexed(indexKey: string): Promise<string[]> {
    return this.redis.smembers(indexKey);
  }

  /** How many ids an index set names. */
  countIndexed(indexKey: string): Promise<number> {
    return this.redis.scard(indexKey);
  }

  /** How many ids a sorted-set index (a review queue) holds. */
  countRanked(indexKey: string): Promise<number> {
    return this.redis.zcard(indexKey);
  }

  /**
   * Claims a unique name for an entity (a deal id, a publisher's domain, a zone's subid): false when another
   * holds it. Atomic, so two admins cannot both take one name; `release` frees it once the entity is gone.
   */
  async claim(name: { key: string; field?: string }, id: number): Promise<boolean> {
    if (name.field === undefined) return (await this.redis.set(name.key, id, 'NX')) === 'OK';
    return (await this.redis.hsetnx(name.key, name.field, id)) === 1;
  }

  /** The id holding a name claimed with `claim` (no field), if any. */
  async claimant(key: string): Promise<number | undefined> {
    const id = await this.redis.get(key);
    return id === null ? undefined : Number(id);
  }

  async release(key: string): Promise<void> {
    await this.redis.del(key);
  }

  /** Writes `value` if the stored revision is still `expectedRev` (0 = new). */
  commit(kind: ConfigKind, id: number, change: ConfigChange): Promise<string> {
    return this.write('put', kind, id, change);
  }

  /**
   * Deletes the entity if the stored revision is still `expectedRev`; engines drop it from their mirror (`op: del`).
   * `value` is its last value.
   */
  remove(kind: ConfigKind, id: number, change: ConfigChange): Promise<string> {
    return this.write('del', kind, id, change);
  }

  private async write(
    op: 'put' | 'del',
    kind: ConfigKind,
    id: number,
    { expectedRev, value, ops = [] }: ConfigChange,
  ): Promise<string> {
    const indexKeys = [...new Set(ops.map((o) => o.key))];
    const args: (string | number | Buffer)[] = [kind, id, expectedRev, encode(value), this.logMaxLen, op];
    for (const op of ops) args.push(op.cmd, indexKeys.indexOf(op.key) + 4, op.member, op.score ?? 0);
    const seq = await this.redis.cfgCommit(
      3 + indexKeys.length,
      cfgHash(kind),
      cfgRevHash(kind),
      CFG_LOG,
      ...indexKeys,
      ...args,
    );
    if (seq === null) throw new ConflictError(`${kind} ${id} changed concurrently`);
    // Pub/sub is only a wake-up call: followers read the log itself, so a lost notice costs latency, not data.
    await this.redis.publish(CFG_NOTICE_CHANNEL, seq);
    return seq;
  }

  /** Read-modify-write with optimistic retries; `change` may throw to abort. */
  async update<T>(
    kind: ConfigKind,
    id: number,
    change: (current: T) => { value: T; ops?: IndexOp[] } | Promise<{ value: T; ops?: IndexOp[] }>,
    onMissing: () => Error,
  ): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      const current = await this.read<T>(kind, id);
      if (!current) throw onMissing();
      const next = await change(current.value);
      try {
        await this.commit(kind, id, { expectedRev: current.rev, value: next.value, ops: next.ops });
        return next.value;
      } catch (e) {
        if (!(e instanceof ConflictError) || attempt >= 8) throw e;
      }
    }
  }
}
