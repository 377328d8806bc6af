import type { LedgerEntry } from '@adnet/schemas/api';
import { balanceKey, ledgerKey } from './keys.ts';
import type { Redis } from './redis.ts';
import type { Result } from 'ioredis';

// Balance and ledger entry change together or not at all; a debit that asks
// for covered funds is refused inside the script, so two concurrent debits
// cannot both spend the last cents.
const POST_LUA = `
local bal = tonumber(redis.call('GET', KEYS[1]) or '0')
local amt = tonumber(ARGV[2])
if ARGV[5] == '1' and amt < 0 and bal + amt < 0 then return {0, bal} end
bal = redis.call('INCRBY', KEYS[1], amt)
local id = redis.call('XADD', KEYS[2], '*', 'kind', ARGV[1], 'amt', amt, 'after', bal, 'reason', ARGV[3], 'ts', ARGV[4])
return {1, bal, id}
`;

declare module 'ioredis' {
  interface RedisCommander<Context> {
    ledgerPost(numKeys: number, ...args: (string | number)[]): Result<[number, number, string?], Context>;
  }
}

export type PostResult = { ok: true; balanceCents: number; entryId: string } | { ok: false; balanceCents: number };

export class LedgerStore {
  constructor(private readonly redis: Redis) {
    redis.defineCommand('ledgerPost', { lua: POST_LUA });
  }

  credit(advertiserId: number, cents: number, reason: string): Promise<PostResult> {
    return this.post(advertiserId, { kind: 'credit', signed: cents, reason, requireFunds: false });
  }

  /** `requireFunds`: refuse (ok false) rather than go below zero. */
  debit(advertiserId: number, cents: number, reason: string, requireFunds: boolean): Promise<PostResult> {
    return this.post(advertiserId, { kind: 'debit', signed: -cents, reason, requireFunds });
  }

  private async post(
    advertiserId: number,
    {
      kind,
      signed,
      reason,
      requireFunds,
    }: { kind: 'credit' | 'debit'; signed: number; reason: string; requireFunds: boolean },
  ): Promise<PostResult> {
    const [ok, bal, id] = await this.redis.ledgerPost(
      2,
      balanceKey(advertiserId),
      ledgerKey(advertiserId),
      kind,
      signed,
      reason,
      new Date().toISOString(),
      requireFunds ? '1' : '0',
    );
    return ok === 1
      ? { ok: true, balanceCents: Number(bal), entryId: String(id) }
      : { ok: false, balanceCents: Number(bal) };
  }

  async balance(advertiserId: number): Promise<number> {
    return Number((await this.redis.get(balanceKey(advertiserId))) ?? 0);
  }

  /** Amounts and reasons of the entries in [fromMs, toMs), oldest first: the stream ids are their times in ms. */
  async between(advertiserId: number, fromMs: number, toMs: number): Promise<{ amount: number; reason: string }[]> {
    const raw = await this.redis.xrange(ledgerKey(advertiserId), String(fromMs), String(toMs - 1));
    return raw.map(([, fields]) => {
      const f = fieldsOf(fields);
      return { amount: Number(f.amt), reason: f.reason ?? '' };
    });
  }

  /** Newest first. */
  async entries(advertiserId: number, limit: number): Promise<LedgerEntry[]> {
    const raw = await this.redis.xrevrange(ledgerKey(advertiserId), '+', '-', 'COUNT', limit);
    return raw.map(([id, fields]) => {
      const f = fieldsOf(fields);
      return {
        id,
        kind: f.kind === 'debit' ? 'debit' : 'credit',
        amount_cents: Number(f.amt),
        balance_after_cents: Number(f.after),
        reason: f.reason ?? '',
        created_at: f.ts ?? '',
      };
    });
  }
}

/** A stream entry's flat [field, value, ...] list as a record. */
function fieldsOf(fields: readonly string[]): Record<string, string> {
  const f: Record<string, string> = {};
  for (let i = 0; i + 1 < fields.length; i += 2) f[fields[i] as string] = fields[i + 1] as string;
  return f;
}
