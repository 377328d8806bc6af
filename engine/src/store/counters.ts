import { countedKey } from '@adnet/schemas/redis-keys';
import { CLICK_TTL_S, clickKey, encodeClickRecord } from '@adnet/schemas/wire/click-record';
import type { ClickRecord } from '@adnet/schemas/wire/click-record';
import type { Redis, Result } from 'ioredis';
import type { Counters } from '../auction/ports.ts';
import { defineRequestScript } from './send-at-once.ts';
import { TurnBatch } from './turn-batch.ts';

/** Win notices, pixels and clicks are honoured once for a week after the bid. */
const COUNT_TTL_S = 7 * 86_400;
/** A fingerprint's click counter outlives its minute by one. */
const FLOOD_TTL_S = 120;

// A mark's value is when its request came (ms), and for a request the engine named, `|<attempt>`: the
// same request run again (ioredis resending a command whose reply a dropped connection lost, or the journal
// replaying a request whose first run failed part-way) finds its own mark and counts as first, not as a
// duplicate of itself. Another request never carries the same attempt, so it still finds the mark taken.

// KEYS: the once-only marks of one event-loop turn. ARGV: the marks' TTL (s), then per key its value.
// Each mark is set only if absent, in the order given: the same mark twice in a batch counts once, as
// it would in two calls. Returns 1 (counted now, or by this same attempt) or 0 (counted before) per key.
const COUNT_ONCE_LUA = `
local out = {}
for i, key in ipairs(KEYS) do
  local v = ARGV[i + 1]
  if redis.call('SET', key, v, 'EX', ARGV[1], 'NX') then
    out[i] = 1
  elseif string.find(v, '|', 1, true) and redis.call('GET', key) == v then
    out[i] = 1
  else
    out[i] = 0
  end
end
return out
`;

// KEYS: per click of one turn, its ticket's once-only click mark, then its fingerprint's counter for the
// minute. ARGV: the marks' TTL (s), the counters' TTL (s), then per click its mark's value. A click whose
// mark was set before is a duplicate (0) and counts against no fingerprint; a first click returns its
// fingerprint's clicks this minute, itself included (its own attempt again: the count as it stands).
const COUNT_CLICKS_LUA = `
local out = {}
for i = 1, #KEYS, 2 do
  local n = 0
  local v = ARGV[2 + (i + 1) / 2]
  if redis.call('SET', KEYS[i], v, 'EX', ARGV[1], 'NX') then
    n = redis.call('INCR', KEYS[i + 1])
    redis.call('EXPIRE', KEYS[i + 1], ARGV[2])
  elseif string.find(v, '|', 1, true) and redis.call('GET', KEYS[i]) == v then
    n = tonumber(redis.call('GET', KEYS[i + 1]) or '1')
  end
  out[#out + 1] = n
end
return out
`;

// KEYS: the click records of one turn. ARGV: their TTL (s), then per key: 1 to replace a kept record, 0 to
// write only where none is kept; then its JSON.
const SAVE_CLICKS_LUA = `
for i, key in ipairs(KEYS) do
  if ARGV[2 * i] == '1' then
    redis.call('SET', key, ARGV[2 * i + 1], 'EX', ARGV[1])
  else
    redis.call('SET', key, ARGV[2 * i + 1], 'EX', ARGV[1], 'NX')
  end
end
return #KEYS
`;

declare module 'ioredis' {
  interface RedisCommander<Context> {
    ctrCountOnce(numKeys: number, ...args: (string | number)[]): Result<number[], Context>;
    ctrCountClicks(numKeys: number, ...args: (string | number)[]): Result<number[], Context>;
    ctrSaveClicks(numKeys: number, ...args: (string | number)[]): Result<number, Context>;
  }
}

const markValue = (at: number, attempt: string | undefined): string => (attempt ? `${at}|${attempt}` : String(at));

/** A click record waiting for its turn's script call. */
interface SavedClick {
  key: string;
  json: string;
  replace: boolean;
}

/**
 * The Counters port on Redis: SET NX marks, JSON click records, per-minute counters. On one Redis
 * server the marks asked for in one event-loop turn (every beacon answered in it) go to Redis as one
 * script call, and so do the clicks' (each click's mark with its fingerprint's counter) and their
 * records; on a cluster each is its own command, as marks hash to different slots.
 */
export class RedisCounters implements Counters {
  private readonly marks: TurnBatch<readonly [string, string], boolean> | undefined;
  private readonly clicks: TurnBatch<readonly [string, string, string], number> | undefined;
  private readonly records: TurnBatch<SavedClick, undefined> | undefined;

  constructor(private readonly redis: Redis) {
    // Each sent once per event-loop turn, with every call of the turn in it.
    defineRequestScript(redis, 'ctrCountOnce', COUNT_ONCE_LUA);
    defineRequestScript(redis, 'ctrCountClicks', COUNT_CLICKS_LUA);
    defineRequestScript(redis, 'ctrSaveClicks', SAVE_CLICKS_LUA);
    this.marks = redis.isCluster ? undefined : new TurnBatch((keys) => this.markAll(keys));
    this.clicks = redis.isCluster ? undefined : new TurnBatch((pairs) => this.countAllClicks(pairs));
    this.records = redis.isCluster ? undefined : new TurnBatch((saved) => this.saveAllClicks(saved));
  }

  countOnce(kind: 'win' | 'imp' | 'click', id: string, at = Date.now(), attempt?: string): Promise<boolean> {
    const key = countedKey(kind, id);
    // The value says when it was counted: a click on the ad is judged by the time since its impression.
    const value = markValue(at, attempt);
    if (this.marks) return this.marks.add([key, value]);
    return this.redis.ctrCountOnce(1, key, COUNT_TTL_S, value).then(([c]) => c === 1);
  }

  private async markAll(marks: readonly (readonly [string, string])[]): Promise<boolean[]> {
    const keys = marks.map((m) => m[0]);
    const counted = await this.redis.ctrCountOnce(keys.length, ...keys, COUNT_TTL_S, ...marks.map((m) => m[1]));
    return counted.map((c) => c === 1);
  }

  async countedAt(kind: 'win' | 'imp' | 'click', id: string): Promise<number | undefined> {
    const v = await this.redis.get(countedKey(kind, id));
    return v === null ? undefined : Number.parseInt(v, 10);
  }

  async saveClick(clickId: string, record: ClickRecord, replace: boolean): Promise<void> {
    if (this.records) await this.records.add({ key: clickKey(clickId), json: encodeClickRecord(record), replace });
    else if (replace) await this.redis.set(clickKey(clickId), encodeClickRecord(record), 'EX', CLICK_TTL_S);
    else await this.redis.set(clickKey(clickId), encodeClickRecord(record), 'EX', CLICK_TTL_S, 'NX');
  }

  private async saveAllClicks(saved: readonly SavedClick[]): Promise<undefined[]> {
    const args: (string | number)[] = [CLICK_TTL_S];
    for (const c of saved) args.push(c.replace ? 1 : 0, c.json);
    await this.redis.ctrSaveClicks(saved.length, ...saved.map((c) => c.key), ...args);
    return saved.map(() => undefined);
  }

  async countClick(id: string, fingerprint: string, nowMs: number, attempt?: string): Promise<number | undefined> {
    const mark = countedKey('click', id);
    const flood = `clicks:fp:{${fingerprint}}:${Math.floor(nowMs / 60_000)}`;
    const value = markValue(nowMs, attempt);
    if (this.clicks) return (await this.clicks.add([mark, flood, value])) || undefined;
    // A cluster: the mark and the counter are in different slots.
    const [first] = await this.redis.ctrCountOnce(1, mark, COUNT_TTL_S, value);
    if (first !== 1) return undefined;
    const [[err, n] = [null, 0]] = (await this.redis.multi().incr(flood).expire(flood, FLOOD_TTL_S).exec()) ?? [];
    if (err) throw err;
    return n as number;
  }

  private async countAllClicks(clicks: readonly (readonly [string, string, string])[]): Promise<number[]> {
    const keys = clicks.flatMap((c) => [c[0], c[1]]);
    return this.redis.ctrCountClicks(keys.length, ...keys, COUNT_TTL_S, FLOOD_TTL_S, ...clicks.map((c) => c[2]));
  }
}
