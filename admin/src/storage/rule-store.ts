import { MAX_RULES_PER_CAMPAIGN } from '@adnet/schemas/rules';
import type { Rule, RuleLogEntry } from '@adnet/schemas/rules';
import { idCounter } from './keys.ts';
import type { Result } from 'ioredis';
import type { Redis } from './redis.ts';

// A campaign's rules, its rule log and the evaluator's marks share one hash tag per campaign, so each
// script below touches one Redis Cluster slot.
const tag = (campaignId: number) => `{rules:${campaignId}}`;
const rulesKey = (c: number) => `${tag(c)}:r`;
const logKey = (c: number) => `${tag(c)}:log`;
const undoneKey = (c: number) => `${tag(c)}:undone`;
const leaseKey = (c: number) => `${tag(c)}:lease`;
const actedKey = (c: number, rule: number, window: string) => `${tag(c)}:acted:${rule}:${window}`;
/** Campaigns that have (or had) rules: what the evaluator walks. */
const CAMPAIGNS = '{rules}:campaigns';
/** Entries kept per campaign, newest first; older ones are dropped as new ones come. */
export const RULE_LOG_MAX = 1_000;
/** An acted mark outlives the longest window (7 days) and the day it started on. */
const ACTED_TTL_S = 9 * 86_400;

/** What undoing an entry must put back: the change as it was made. */
export type RuleUndo =
  | { kind: 'sources'; op: 'add' | 'remove'; zones: string[]; sites: number[] }
  | {
      kind: 'bid_adjustment';
      key: { zone?: string; site?: number; country?: string };
      before: number | null;
      after: number;
    }
  | {
      kind: 'targeting';
      field: 'geo_include' | 'os_include' | 'browser_include';
      value: string;
      before: string[];
      after: string[];
    }
  | { kind: 'creative'; creativeId: number }
  | { kind: 'campaign' }
  | { kind: 'none' };

/** A log entry as stored: the public entry with what its undo needs. */
export type StoredLogEntry = Omit<RuleLogEntry, 'undone_at'> & { undo: RuleUndo };

// At most MAX_RULES_PER_CAMPAIGN: counted and written in one step, so two concurrent creations cannot both pass.
const CREATE_LUA = `
if redis.call('HLEN', KEYS[1]) >= tonumber(ARGV[3]) then return 0 end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
return 1
`;
const REPLACE_LUA = `
if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 0 then return 0 end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
return 1
`;
// Appends an entry and drops the oldest past the bound (ids grow, so the smallest are the oldest).
const APPEND_LUA = `
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
local n = redis.call('HLEN', KEYS[1])
if n > tonumber(ARGV[3]) then
  local ids = redis.call('HKEYS', KEYS[1])
  table.sort(ids, function(a, b) return tonumber(a) < tonumber(b) end)
  for i = 1, n - tonumber(ARGV[3]) do
    redis.call('HDEL', KEYS[1], ids[i])
    redis.call('HDEL', KEYS[2], ids[i])
  end
end
return 1
`;
const RELEASE_LUA = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
`;

declare module 'ioredis' {
  interface RedisCommander<Context> {
    ruleCreate(numKeys: number, ...args: (string | number)[]): Result<number, Context>;
    ruleReplace(numKeys: number, ...args: (string | number)[]): Result<number, Context>;
    ruleLogAppend(numKeys: number, ...args: (string | number)[]): Result<number, Context>;
    ruleLeaseRelease(numKeys: number, ...args: (string | number)[]): Result<number, Context>;
  }
}

export class RuleStore {
  constructor(private readonly redis: Redis) {
    redis.defineCommand('ruleCreate', { lua: CREATE_LUA });
    redis.defineCommand('ruleReplace', { lua: REPLACE_LUA });
    redis.defineCommand('ruleLogAppend', { lua: APPEND_LUA });
    redis.defineCommand('ruleLeaseRelease', { lua: RELEASE_LUA });
  }

  /** The rule with its new id, or undefined when the campaign has MAX_RULES_PER_CAMPAIGN already. */
  async create(rule: Omit<Rule, 'id'>): Promise<Rule | undefined> {
    const id = await this.redis.incr(idCounter('rule'));
    const stored: Rule = { id, ...rule };
    const c = rule.campaign_id;
    const ok = await this.redis.ruleCreate(1, rulesKey(c), id, JSON.stringify(stored), MAX_RULES_PER_CAMPAIGN);
    if (ok !== 1) return undefined;
    await this.redis.sadd(CAMPAIGNS, c);
    return stored;
  }

  async list(campaignId: number): Promise<Rule[]> {
    const all = await this.redis.hvals(rulesKey(campaignId));
    return all.map((r) => JSON.parse(r) as Rule).sort((a, b) => a.id - b.id);
  }

  async get(campaignId: number, ruleId: number): Promise<Rule | undefined> {
    const raw = await this.redis.hget(rulesKey(campaignId), String(ruleId));
    return raw === null ? undefined : (JSON.parse(raw) as Rule);
  }

  /** Replaces a rule that still exists; false when it was deleted meanwhile. */
  async replace(rule: Rule): Promise<boolean> {
    return (await this.redis.ruleReplace(1, rulesKey(rule.campaign_id), rule.id, JSON.stringify(rule))) === 1;
  }

  async delete(campaignId: number, ruleId: number): Promise<boolean> {
    return (await this.redis.hdel(rulesKey(campaignId), String(ruleId))) === 1;
  }

  /** Every campaign that has had a rule; one without any now is skipped by the evaluator and dropped here. */
  async campaigns(): Promise<number[]> {
    return (await this.redis.smembers(CAMPAIGNS)).map(Number).sort((a, b) => a - b);
  }

  async forget(campaignId: number): Promise<void> {
    // Only when it still has none: a rule created meanwhile keeps it on the list.
    if ((await this.redis.hlen(rulesKey(campaignId))) === 0) await this.redis.srem(CAMPAIGNS, campaignId);
  }

  /** One evaluator at a time per campaign, across admin processes: true for the one that holds the lease. */
  async lease(campaignId: number, token: string, ms: number): Promise<boolean> {
    return (await this.redis.set(leaseKey(campaignId), token, 'PX', ms, 'NX')) === 'OK';
  }

  async release(campaignId: number, token: string): Promise<void> {
    await this.redis.ruleLeaseRelease(1, leaseKey(campaignId), token);
  }

  /**
   * Marks `target` acted on by the rule in this window instance: true for the one caller that marked it, so
   * a target is acted on once per window however many passes and processes see it.
   */
  async claim(campaignId: number, ruleId: number, window: string, target: string): Promise<boolean> {
    const key = actedKey(campaignId, ruleId, window);
    const [[, added]] = (await this.redis.multi().sadd(key, target).expire(key, ACTED_TTL_S).exec()) as [
      [unknown, number],
    ];
    return added === 1;
  }

  /** Gives a mark back when its action could not be made: the next pass tries again. */
  async unclaim(campaignId: number, ruleId: number, window: string, target: string): Promise<void> {
    await this.redis.srem(actedKey(campaignId, ruleId, window), target);
  }

  async acted(campaignId: number, ruleId: number, window: string): Promise<Set<string>> {
    return new Set(await this.redis.smembers(actedKey(campaignId, ruleId, window)));
  }

  async appendLog(entry: Omit<StoredLogEntry, 'id'>): Promise<StoredLogEntry> {
    const id = await this.redis.incr(idCounter('rule-log'));
    const stored: StoredLogEntry = { id, ...entry };
    const c = entry.campaign_id;
    await this.redis.ruleLogAppend(2, logKey(c), undoneKey(c), id, JSON.stringify(stored), RULE_LOG_MAX);
    return stored;
  }

  /** The campaign's log, newest first, each entry with when it was undone (null: it stands). */
  async log(campaignId: number): Promise<(StoredLogEntry & { undone_at: string | null })[]> {
    const [entries, undone] = await Promise.all([
      this.redis.hvals(logKey(campaignId)),
      this.redis.hgetall(undoneKey(campaignId)),
    ]);
    return entries
      .map((raw) => {
        const e = JSON.parse(raw) as StoredLogEntry;
        return { ...e, undone_at: undone[String(e.id)] ?? null };
      })
      .sort((a, b) => b.id - a.id);
  }

  async entry(
    campaignId: number,
    entryId: number,
  ): Promise<(StoredLogEntry & { undone_at: string | null }) | undefined> {
    const [raw, undone] = await Promise.all([
      this.redis.hget(logKey(campaignId), String(entryId)),
      this.redis.hget(undoneKey(campaignId), String(entryId)),
    ]);
    return raw === null ? undefined : { ...(JSON.parse(raw) as StoredLogEntry), undone_at: undone };
  }

  /** True for the one caller that marks the entry undone: an entry is undone once. */
  async markUndone(campaignId: number, entryId: number, at: string): Promise<boolean> {
    return (await this.redis.hsetnx(undoneKey(campaignId), String(entryId), at)) === 1;
  }

  /** Takes the mark back when the undo could not be made. */
  async unmarkUndone(campaignId: number, entryId: number): Promise<void> {
    await this.redis.hdel(undoneKey(campaignId), String(entryId));
  }
}
