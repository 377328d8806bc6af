import { markMoved } from '@adnet/runtime/moved-marks';
import type { EngineEvent } from '@adnet/schemas/events';
import { rotationCountsKey } from '@adnet/schemas/redis-keys';
import { CPA_COUNTS_TTL_MS, cpaConversionField, cpaCountsKey } from '@adnet/schemas/target-cpa';
import { JOURNAL_PENDING_KEY, clickKey, decodeClickRecord } from '@adnet/schemas/wire/click-record';
import { xaddArgs } from '@adnet/schemas/wire/event-stream';
import type { Redis, Result } from 'ioredis';
import type { ConversionStatus } from '../domain/postback-rules.ts';

export interface Attempt {
  at: string;
  attempt: number;
  /** HTTP status when the tracker answered. */
  status: number | null;
  /** Why it failed, as a code (`timeout`, `dns`, `http_status`...); absent on attempts recorded before codes were kept. */
  reason?: string | null;
  /** The same in words, for people; never an address, a DNS answer or a port. */
  error: string | null;
}

export interface Conversion {
  id: number;
  advertiser_id: number;
  click_id: string;
  txid: string;
  payout_cents: number;
  status: ConversionStatus;
  postback_failed: boolean;
  campaign_id: number;
  creative_id: number;
  zone_id: number;
  site_id: number;
  country: string;
  device: string;
  os: string;
  browser: string;
  vertical: string;
  /** The format of the clicked ad as served (the postback's `{format}`); absent in conversions stored before it. */
  format?: string;
  created_at: string;
  updated_at: string;
  attempts: Attempt[];
}

const convKey = (adv: number) => `conv:{adv:${adv}}`;
const txKey = (adv: number) => `conv:{adv:${adv}}:tx`;
export const POSTBACK_QUEUE = 'pb:queue';

// Claims the txid for a new conversion, or says which conversion already has it.
const CLAIM_LUA = `
local existing = redis.call('HGET', KEYS[2], ARGV[1])
if existing then return tonumber(existing) end
redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
redis.call('HSET', KEYS[1], ARGV[2], ARGV[3])
return 0
`;

// Hands out due jobs and leases them: their score moves to now + lease, so no other instance sees them
// until the lease runs out (an instance that dies mid-attempt leaves the job to be retried). Members
// start with the advertiser's id; one advertiser gets at most ARGV[4] jobs of a batch, and its other due
// jobs seen in the scan (ARGV[5] deep) move behind every job that was due before now (score = now): a
// backlog of one advertiser cannot keep another's jobs out of the batches for longer than a pass.
const LEASE_LUA = `
local items = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[5]))
local max, share = tonumber(ARGV[3]), tonumber(ARGV[4])
local taken, per = {}, {}
for _, item in ipairs(items) do
  local adv = string.match(item, '^[^:]*')
  local n = per[adv] or 0
  if n < share and #taken < max then
    redis.call('ZADD', KEYS[1], ARGV[2], item)
    table.insert(taken, item)
  elseif n >= share then
    redis.call('ZADD', KEYS[1], ARGV[1], item)
  end
  per[adv] = n + 1
end
return taken
`;

// Records are JSON written by this module; the scripts below change one field group in Redis itself,
// so two writers never overwrite each other's change with a copy read earlier. cjson writes an empty
// array as {}: the only array of a conversion is put back in shape.
const ENCODE_LUA = `
local function encode(c)
  return (string.gsub(cjson.encode(c), '"attempts":{}', '"attempts":[]'))
end
`;

// A status move as compare-and-set: applied only if the status is still the one the caller decided
// from; returns the new record, or nothing when another move got there first.
const MOVE_LUA = `${ENCODE_LUA}
local raw = redis.call('HGET', KEYS[1], ARGV[1])
if not raw then return false end
local c = cjson.decode(raw)
if c.status ~= ARGV[2] then return false end
c.status = ARGV[3]
c.payout_cents = tonumber(ARGV[4])
c.updated_at = ARGV[5]
local out = encode(c)
redis.call('HSET', KEYS[1], ARGV[1], out)
return out
`;

// Appends one postback attempt (and marks the postback failed after the last one) without touching
// the status, which a concurrent postback may have just moved.
const ATTEMPT_LUA = `${ENCODE_LUA}
local raw = redis.call('HGET', KEYS[1], ARGV[1])
if not raw then return 0 end
local c = cjson.decode(raw)
if type(c.attempts) ~= 'table' then c.attempts = {} end
local a = { at = ARGV[2], attempt = tonumber(ARGV[3]), status = cjson.null, reason = cjson.null, error = cjson.null }
if ARGV[4] ~= '' then a.status = tonumber(ARGV[4]) end
if ARGV[5] ~= '' then a.error = ARGV[5] end
if ARGV[7] ~= '' then a.reason = ARGV[7] end
table.insert(c.attempts, a)
if ARGV[6] == '1' then c.postback_failed = true end
redis.call('HSET', KEYS[1], ARGV[1], encode(c))
return 1
`;

declare module 'ioredis' {
  interface RedisCommander<Context> {
    convClaim(numKeys: number, ...args: (string | number)[]): Result<number, Context>;
    convMove(numKeys: number, ...args: (string | number)[]): Result<string | null, Context>;
    convAttempt(numKeys: number, ...args: (string | number)[]): Result<number, Context>;
    pbLease(numKeys: number, ...args: (string | number)[]): Result<string[], Context>;
  }
}

/** One attempt of a conversion's postback: the advertiser's, for the conversion's status. */
export interface PostbackAttempt {
  advertiser: number;
  conversion: number;
  status: string;
  attempt: number;
}

export class ConversionStore {
  constructor(private readonly redis: Redis) {
    redis.defineCommand('convClaim', { lua: CLAIM_LUA });
    redis.defineCommand('convMove', { lua: MOVE_LUA });
    redis.defineCommand('convAttempt', { lua: ATTEMPT_LUA });
    redis.defineCommand('pbLease', { lua: LEASE_LUA });
  }

  /** Creates the conversion unless its txid is known; returns the existing id in that case. */
  async create(c: Conversion): Promise<number> {
    const existing = await this.redis.convClaim(
      2,
      convKey(c.advertiser_id),
      txKey(c.advertiser_id),
      c.txid,
      c.id,
      JSON.stringify(c),
    );
    return Number(existing);
  }

  async get(adv: number, id: number): Promise<Conversion | undefined> {
    const raw = await this.redis.hget(convKey(adv), String(id));
    return raw ? (JSON.parse(raw) as Conversion) : undefined;
  }

  /** Moves the status from `from` to `to` (with the payout it came with); undefined when it is no longer `from`. */
  async move(
    adv: number,
    id: number,
    change: { from: ConversionStatus; to: ConversionStatus; payoutCents: number; at: string },
  ): Promise<Conversion | undefined> {
    const raw = await this.redis.convMove(1, convKey(adv), id, change.from, change.to, change.payoutCents, change.at);
    return raw ? (JSON.parse(raw) as Conversion) : undefined;
  }

  /** Records one postback attempt; `failed` marks the postback as given up. */
  async recordAttempt(adv: number, id: number, a: Attempt, failed: boolean): Promise<void> {
    await this.redis.convAttempt(
      1,
      convKey(adv),
      id,
      a.at,
      a.attempt,
      a.status ?? '',
      a.error ?? '',
      failed ? '1' : '0',
      a.reason ?? '',
    );
  }

  async list(adv: number): Promise<Conversion[]> {
    const all = Object.values(await this.redis.hgetall(convKey(adv))).map((raw) => JSON.parse(raw) as Conversion);
    return all.sort((a, b) => b.id - a.id);
  }

  nextId(): Promise<number> {
    return this.redis.incr('ids:conversion');
  }

  /** Queue member: `<advertiser>:<conversion>:<status>:<attempt>`: each status change has its own chain. */
  schedule({ advertiser, conversion, status, attempt }: PostbackAttempt, dueAt: number): Promise<number> {
    return this.redis.zadd(POSTBACK_QUEUE, dueAt, `${advertiser}:${conversion}:${status}:${attempt}`);
  }

  /**
   * Leases up to `max` due jobs, at most `perAdvertiser` of one advertiser; looks `scan` jobs deep, and
   * moves an advertiser's due jobs past its share behind the others (they stay due).
   */
  lease(
    now: number,
    leaseMs: number,
    max: number,
    { perAdvertiser = max, scan = max }: { perAdvertiser?: number; scan?: number } = {},
  ): Promise<string[]> {
    return this.redis.pbLease(1, POSTBACK_QUEUE, now, now + leaseMs, max, perAdvertiser, Math.max(scan, max));
  }

  /** Hands leased attempts back, due at `now` (a stopping worker did not get to them). */
  async release(members: string[], now: number): Promise<void> {
    if (members.length) await this.redis.zadd(POSTBACK_QUEUE, 'XX', ...members.flatMap((m) => [now, m]));
  }

  done(member: string): Promise<number> {
    return this.redis.zrem(POSTBACK_QUEUE, member);
  }

  depth(): Promise<number> {
    return this.redis.zcard(POSTBACK_QUEUE);
  }

  /** The click a conversion names, as the engine's click route recorded it (30 days). */
  async click(clickId: string): Promise<ReturnType<typeof decodeClickRecord>> {
    return decodeClickRecord(await this.redis.get(clickKey(clickId)));
  }

  /** Whether an engine still holds journaled clicks from a Redis outage, not yet replayed. */
  async clicksReplaying(): Promise<boolean> {
    return (await this.redis.exists(JOURNAL_PENDING_KEY)) > 0;
  }

  /** The approved conversion's event, into the `events` stream the statistics read. */
  async emit(event: EngineEvent, streamMaxLen: number): Promise<void> {
    await this.redis.xadd(...xaddArgs([event], streamMaxLen));
  }

  /** One conversion more in the campaign's rotation counts (engine/src/rotation/). */
  async countForRotation(campaignId: number, creativeId: number): Promise<void> {
    await this.redis.hincrby(rotationCountsKey(campaignId), `v:${creativeId}`, 1);
  }

  /** One conversion more on the zone, for a campaign with a target CPA (admin/src/cpa/). */
  async countForTargetCpa(campaignId: number, zoneId: number): Promise<void> {
    await this.redis
      .multi()
      .hincrby(cpaCountsKey(campaignId), cpaConversionField(zoneId), 1)
      .pexpire(cpaCountsKey(campaignId), CPA_COUNTS_TTL_MS)
      .exec();
  }

  /** Marks the campaign's rotation counts as moved, so the engines' next refresh reads them. */
  async markRotationMoved(campaignId: number): Promise<void> {
    await markMoved(this.redis, 'rotation', [campaignId]);
  }
}
