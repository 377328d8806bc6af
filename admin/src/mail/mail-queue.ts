import type { Notice } from '@adnet/schemas/accounts';
import type { Result } from 'ioredis';
import type { Redis } from '../storage/redis.ts';

// The durable outbox: notices wait in Redis (AOF in `pnpm start`), so a request only writes one and a
// crash or an SMTP outage loses none. One slot ({mail}) for every key, so each script is atomic on a
// Redis Cluster too.
const QUEUE = '{mail}:q';
const jobKey = (id: string): string => `{mail}:j:${id}`;
const onceKey = (key: string): string => `{mail}:once:${key}`;
const ID = '{mail}:id';
/** A job outlives any retry schedule; the expiry only guards against a queue entry lost by hand. */
const JOB_TTL_MS = 7 * 86_400_000;

// ARGV: notice JSON, due ms, job ttl, once key ('' for none), once ttl.
const ENQUEUE_LUA = `
if ARGV[4] ~= '' then
  if not redis.call('SET', KEYS[3], '1', 'NX', 'PX', ARGV[5]) then return 0 end
end
local id = redis.call('INCR', KEYS[2])
local key = KEYS[4] .. id
redis.call('HSET', key, 'n', ARGV[1], 'a', 0)
redis.call('PEXPIRE', key, ARGV[3])
redis.call('ZADD', KEYS[1], ARGV[2], id)
return id
`;

// Due jobs move to now + lease, so no other instance takes them until the lease runs out.
const LEASE_LUA = `
local ids = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[3]))
local out = {}
for _, id in ipairs(ids) do
  redis.call('ZADD', KEYS[1], ARGV[2], id)
  local job = redis.call('HMGET', KEYS[2] .. id, 'n', 'a')
  table.insert(out, id)
  table.insert(out, job[1] or '')
  table.insert(out, job[2] or '0')
end
return out
`;

declare module 'ioredis' {
  interface RedisCommander<Context> {
    mailEnqueue(numKeys: number, ...args: (string | number)[]): Result<number, Context>;
    mailLease(numKeys: number, ...args: (string | number)[]): Result<string[], Context>;
  }
}

export interface MailJob {
  id: string;
  /** The stored JSON, checked by the worker (a job written by another version may not parse). */
  raw: string;
  /** Attempts made before this one. */
  attempts: number;
}

export interface EnqueueOptions {
  /** At most one notice per this key while it lives (e.g. one postback notice per campaign per day). */
  once?: { key: string; ttlMs: number };
  /** When the first attempt is due; now unless given. */
  dueAt?: number;
}

export class MailQueue {
  constructor(private readonly redis: Redis) {
    redis.defineCommand('mailEnqueue', { lua: ENQUEUE_LUA });
    redis.defineCommand('mailLease', { lua: LEASE_LUA });
  }

  /** The job's id, or undefined when `once` says this notice was already queued. */
  async enqueue(notice: Notice, o: EnqueueOptions = {}): Promise<string | undefined> {
    const once = o.once;
    const id = await this.redis.mailEnqueue(
      4,
      QUEUE,
      ID,
      onceKey(once?.key ?? '-'),
      jobKey(''),
      JSON.stringify(notice),
      o.dueAt ?? Date.now(),
      JOB_TTL_MS,
      once ? once.key : '',
      once?.ttlMs ?? 0,
    );
    return id === 0 ? undefined : String(id);
  }

  async lease(now: number, leaseMs: number, max: number): Promise<MailJob[]> {
    const flat = await this.redis.mailLease(2, QUEUE, jobKey(''), now, now + leaseMs, max);
    const jobs: MailJob[] = [];
    for (let i = 0; i + 2 < flat.length; i += 3)
      jobs.push({ id: flat[i] as string, raw: flat[i + 1] as string, attempts: Number(flat[i + 2]) });
    return jobs;
  }

  async done(id: string): Promise<void> {
    await this.redis.multi().zrem(QUEUE, id).del(jobKey(id)).exec();
  }

  /** Counts the failed attempt and makes the job due again at `dueAt`. */
  async retry(id: string, dueAt: number): Promise<void> {
    await this.redis.multi().hincrby(jobKey(id), 'a', 1).zadd(QUEUE, 'XX', dueAt, id).exec();
  }

  /** Hands leased jobs back, due at `now`, unattempted. */
  async release(ids: readonly string[], now: number): Promise<void> {
    if (ids.length) await this.redis.zadd(QUEUE, 'XX', ...ids.flatMap((id) => [now, id]));
  }

  depth(): Promise<number> {
    return this.redis.zcard(QUEUE);
  }
}
