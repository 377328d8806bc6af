import type { Payout, PayoutSettings, PayoutStatus, PubLedgerEntry } from '@adnet/schemas/billing';
import { PAYOUT_METHODS, PAYOUT_STATUSES } from '@adnet/schemas/billing';
import type { Result } from 'ioredis';
import type { Redis } from '../storage/redis.ts';

// Publishers' money shares one Redis Cluster slot, {pay}: it moves once a day and by hand, so one slot
// is no bottleneck, and every move (a day's earnings, an adjustment, a payout and its index) is one
// script over keys of that slot.

const bal = (pub: number): string => `{pay}:pub:${pub}:bal`;
const ledger = (pub: number): string => `{pay}:pub:${pub}:ledger`;
/** Earnings day -> cents moved into the balance for it: the day key that makes the close idempotent. */
const earn = (pub: number): string => `{pay}:pub:${pub}:earn`;
const settingsKey = (pub: number): string => `{pay}:pub:${pub}:settings`;
const openKey = (pub: number): string => `{pay}:pub:${pub}:open`;
const pubPayouts = (pub: number): string => `{pay}:pub:${pub}:payouts`;
const payoutKey = (id: number): string => `{pay}:payout:${id}`;
const statusIndex = (s: PayoutStatus): string => `{pay}:payouts:${s}`;
const PAYOUT_SEQ = '{pay}:payout_seq';
/** Publishers that ever had earnings closed (the close re-checks their recent days). */
const PUBLISHERS = '{pay}:publishers';
const CLOSED_THROUGH = '{pay}:closed_through';

const ENTRY = `
local function entry(key, kind, amt, after, ref, ts)
  return redis.call('XADD', key, '*', 'kind', kind, 'amt', amt, 'after', after, 'ref', ref, 'ts', ts)
end
`;

// KEYS: earn, balance, ledger, publishers. ARGV: day, cents, now, publisher id.
// First time for the day: its earnings move in (kind earnings). Later: the difference, if any, as an adjustment.
const CLOSE_DAY_LUA = `${ENTRY}
local amt = tonumber(ARGV[2])
local prev = redis.call('HGET', KEYS[1], ARGV[1])
if not prev then
  redis.call('HSET', KEYS[1], ARGV[1], amt)
  redis.call('ZADD', KEYS[4], ARGV[4], ARGV[4])
  if amt == 0 then return 1 end
  entry(KEYS[3], 'earnings', amt, redis.call('INCRBY', KEYS[2], amt), ARGV[1], ARGV[3])
  return 1
end
local delta = amt - tonumber(prev)
if delta == 0 then return 0 end
redis.call('HSET', KEYS[1], ARGV[1], amt)
entry(KEYS[3], 'adjustment', delta, redis.call('INCRBY', KEYS[2], delta), ARGV[1], ARGV[3])
return 2
`;

// KEYS: balance, ledger, open, settings, payout, publisher's payouts, due index. ARGV: payout id, publisher id, now.
// One open payout per publisher; it takes the whole balance when the balance reaches the threshold.
const MAKE_PAYOUT_LUA = `${ENTRY}
if redis.call('EXISTS', KEYS[3]) == 1 then return 0 end
local raw = redis.call('GET', KEYS[4])
if not raw then return 0 end
local s = cjson.decode(raw)
local b = tonumber(redis.call('GET', KEYS[1]) or '0')
if b <= 0 or b < tonumber(s.threshold_cents) then return 0 end
entry(KEYS[2], 'payout', -b, redis.call('INCRBY', KEYS[1], -b), ARGV[1], ARGV[3])
redis.call('HSET', KEYS[5], 'id', ARGV[1], 'publisher_id', ARGV[2], 'status', 'due', 'amount_cents', b, 'method', s.method,
  'details', cjson.encode(s.details), 'created_at', ARGV[3])
redis.call('SET', KEYS[3], ARGV[1])
redis.call('ZADD', KEYS[6], ARGV[1], ARGV[1])
redis.call('ZADD', KEYS[7], ARGV[1], ARGV[1])
return b
`;

// KEYS: payout, from index, to index, open key (or the payout key again). ARGV: payout id, from status(es) a|b, to status, field, value, now.
const MOVE_LUA = `
local st = redis.call('HGET', KEYS[1], 'status')
if not st then return {-1, ''} end
local ok = false
for s in string.gmatch(ARGV[2], '[^|]+') do if s == st then ok = true end end
if not ok then return {0, st} end
redis.call('HSET', KEYS[1], 'status', ARGV[3], ARGV[4], ARGV[5], ARGV[3] .. '_at', ARGV[6])
redis.call('ZREM', KEYS[2], ARGV[1])
redis.call('ZREM', KEYS[5], ARGV[1])
redis.call('ZADD', KEYS[3], ARGV[1], ARGV[1])
if ARGV[3] == 'paid' then redis.call('DEL', KEYS[4]) end
return {1, ARGV[3]}
`;

declare module 'ioredis' {
  interface RedisCommander<Context> {
    payCloseDay(numKeys: number, ...args: (string | number)[]): Result<number, Context>;
    payMakePayout(numKeys: number, ...args: (string | number)[]): Result<number, Context>;
    payMove(numKeys: number, ...args: (string | number)[]): Result<[number, string], Context>;
    payMarkClosed(numKeys: number, ...args: (string | number)[]): Result<number, Context>;
  }
}

export type MoveOutcome =
  { ok: true; payout: Payout } | { ok: false; reason: 'not_found' | 'illegal'; status?: string };

export class PayoutStore {
  constructor(private readonly redis: Redis) {
    redis.defineCommand('payCloseDay', { lua: CLOSE_DAY_LUA });
    redis.defineCommand('payMakePayout', { lua: MAKE_PAYOUT_LUA });
    redis.defineCommand('payMove', { lua: MOVE_LUA });
    // Days as YYYY-MM-DD compare as text.
    redis.defineCommand('payMarkClosed', {
      lua: `local c = redis.call('GET', KEYS[1]) if not c or c < ARGV[1] then redis.call('SET', KEYS[1], ARGV[1]) end return 1`,
    });
  }

  /** 1: the day's earnings moved in; 2: an adjustment was posted; 0: nothing changed. */
  closeDay(pub: number, day: string, cents: number): Promise<number> {
    return this.redis.payCloseDay(
      4,
      earn(pub),
      bal(pub),
      ledger(pub),
      PUBLISHERS,
      day,
      cents,
      new Date().toISOString(),
      pub,
    );
  }

  /** The days of `pub` already closed, with what was moved in for each. */
  async closedDays(pub: number): Promise<Map<string, number>> {
    const h = await this.redis.hgetall(earn(pub));
    return new Map(Object.entries(h).map(([d, c]) => [d, Number(c)]));
  }

  async publishers(): Promise<number[]> {
    return (await this.redis.zrange(PUBLISHERS, 0, -1)).map(Number);
  }

  async closedThrough(): Promise<string | null> {
    return this.redis.get(CLOSED_THROUGH);
  }

  /** Moves the mark forward only (two closes racing never move it back). */
  async markClosedThrough(day: string): Promise<void> {
    await this.redis.payMarkClosed(1, CLOSED_THROUGH, day);
  }

  async balance(pub: number): Promise<number> {
    return Number((await this.redis.get(bal(pub))) ?? 0);
  }

  async setSettings(pub: number, s: PayoutSettings): Promise<void> {
    await this.redis.set(settingsKey(pub), JSON.stringify(s));
  }

  async settings(pub: number): Promise<PayoutSettings | null> {
    const raw = await this.redis.get(settingsKey(pub));
    return raw ? (JSON.parse(raw) as PayoutSettings) : null;
  }

  /** A due payout of the whole balance when it reaches the publisher's threshold and none is open; its amount, or 0. */
  async makePayoutIfDue(pub: number): Promise<number> {
    // A cheap look first, so payout ids are not spent on publishers who are not due; the script decides.
    const [settings, balance, open] = await Promise.all([
      this.settings(pub),
      this.balance(pub),
      this.redis.exists(openKey(pub)),
    ]);
    if (!settings || open || balance <= 0 || balance < settings.threshold_cents) return 0;
    const id = await this.redis.incr(PAYOUT_SEQ);
    return this.redis.payMakePayout(
      7,
      bal(pub),
      ledger(pub),
      openKey(pub),
      settingsKey(pub),
      payoutKey(id),
      pubPayouts(pub),
      statusIndex('due'),
      id,
      pub,
      new Date().toISOString(),
    );
  }

  async get(id: number): Promise<Payout | undefined> {
    const h = await this.redis.hgetall(payoutKey(id));
    return h.id ? toPayout(h) : undefined;
  }

  async ofPublisher(pub: number, limit: number): Promise<Payout[]> {
    return this.load(await this.redis.zrevrange(pubPayouts(pub), 0, limit - 1));
  }

  async byStatus(status: PayoutStatus | undefined, limit: number): Promise<Payout[]> {
    if (status) return this.load(await this.redis.zrevrange(statusIndex(status), 0, limit - 1));
    const all = await Promise.all(PAYOUT_STATUSES.map((s) => this.redis.zrevrange(statusIndex(s), 0, limit - 1)));
    return this.load(
      all
        .flat()
        .sort((a, b) => Number(b) - Number(a))
        .slice(0, limit),
    );
  }

  async inPayouts(pub: number): Promise<number> {
    const open = await this.redis.get(openKey(pub));
    const p = open ? await this.get(Number(open)) : undefined;
    return p && p.status !== 'paid' ? p.amount_cents : 0;
  }

  markPaid(id: number, reference: string): Promise<MoveOutcome> {
    return this.move(id, ['due', 'held'], 'paid', { field: 'reference', value: reference });
  }

  hold(id: number, reason: string): Promise<MoveOutcome> {
    return this.move(id, ['due'], 'held', { field: 'hold_reason', value: reason });
  }

  private async move(
    id: number,
    from: PayoutStatus[],
    to: PayoutStatus,
    /** The field the move sets, and its value. */
    { field, value }: { field: string; value: string },
  ): Promise<MoveOutcome> {
    const p = await this.get(id);
    if (!p) return { ok: false, reason: 'not_found' };
    const [r, st] = await this.redis.payMove(
      5,
      payoutKey(id),
      statusIndex(from[0] as PayoutStatus),
      statusIndex(to),
      openKey(p.publisher_id),
      statusIndex(from[1] ?? (from[0] as PayoutStatus)),
      id,
      from.join('|'),
      to,
      field,
      value,
      new Date().toISOString(),
    );
    if (r === -1) return { ok: false, reason: 'not_found' };
    if (r === 0) return { ok: false, reason: 'illegal', status: st };
    return { ok: true, payout: (await this.get(id)) as Payout };
  }

  /** Entries between two instants (ms), oldest first, and the balance just before the first. */
  async ledgerBetween(
    pub: number,
    fromMs: number,
    toMs: number,
  ): Promise<{ opening: number; entries: PubLedgerEntry[] }> {
    const [before, raw] = await Promise.all([
      // Stream ids are times in ms: nothing lies before the epoch (and -1 is no id).
      fromMs > 0 ? this.redis.xrevrange(ledger(pub), String(fromMs - 1), '-', 'COUNT', 1) : Promise.resolve([]),
      this.redis.xrange(ledger(pub), String(fromMs), String(toMs - 1)),
    ]);
    const prev = before[0] ? toEntry(before[0]) : undefined;
    return { opening: prev?.balance_after_cents ?? 0, entries: raw.map(toEntry) };
  }

  /** Newest first. */
  async entries(pub: number, limit: number): Promise<PubLedgerEntry[]> {
    return (await this.redis.xrevrange(ledger(pub), '+', '-', 'COUNT', limit)).map(toEntry);
  }

  private async load(ids: string[]): Promise<Payout[]> {
    const rows = await Promise.all(ids.map((id) => this.get(Number(id))));
    return rows.filter((p): p is Payout => p !== undefined);
  }
}

const KINDS = ['earnings', 'adjustment', 'payout'] as const;

function toEntry([id, fields]: [string, string[]]): PubLedgerEntry {
  const f: Record<string, string> = {};
  for (let i = 0; i + 1 < fields.length; i += 2) f[fields[i] as string] = fields[i + 1] as string;
  return {
    id,
    kind: KINDS.find((k) => k === f.kind) ?? 'adjustment',
    amount_cents: Number(f.amt),
    balance_after_cents: Number(f.after),
    ref: f.ref ?? '',
    created_at: f.ts ?? '',
  };
}

function toPayout(h: Record<string, string>): Payout {
  return {
    id: Number(h.id),
    publisher_id: Number(h.publisher_id),
    status: PAYOUT_STATUSES.find((s) => s === h.status) ?? 'due',
    amount_cents: Number(h.amount_cents),
    method: PAYOUT_METHODS.find((m) => m === h.method) ?? 'paypal',
    details: h.details ? (JSON.parse(h.details) as Record<string, string>) : {},
    created_at: h.created_at ?? '',
    paid_at: h.paid_at ?? null,
    reference: h.reference ?? null,
    hold_reason: h.hold_reason ?? null,
  };
}
