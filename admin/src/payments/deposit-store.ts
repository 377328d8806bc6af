import { createHash } from 'node:crypto';
import type { Deposit, DepositStatus } from '@adnet/schemas/billing';
import { DEPOSIT_STATUSES } from '@adnet/schemas/billing';
import { centsToUsd } from '@adnet/schemas/money';
import type { Result } from 'ioredis';
import { balanceKey, idCounter, ledgerKey } from '../storage/keys.ts';
import type { Redis } from '../storage/redis.ts';

// A deposit lives in its advertiser's {adv:<id>} slot beside the balance and the ledger, so crediting it
// is one script: the status check, the credit, the ledger entry and the receipt number change together
// or not at all. Whatever order and however often the provider's notices arrive, only the first
// `pending|failed -> paid` move credits; every later one finds the status moved and does nothing.

const depositKey = (adv: number, id: number): string => `{adv:${adv}}:dep:${id}`;
const depositListKey = (adv: number): string => `{adv:${adv}}:deps`;
/** Receipt numbers, one gap-free series per advertiser's ledger: taken only inside the crediting script. */
const receiptSeqKey = (adv: number): string => `{adv:${adv}}:receipt_seq`;
/** Deposit id -> advertiser id, and provider references (session, payment intent) -> deposit id. */
const DEPOSIT_OWNER = 'dep:owner';
const DEPOSIT_REFS = 'dep:refs';
const localTokenKey = (digest: string): string => `dep:local:${digest}`;

const LEDGER_ENTRY = `
local function ledger(bal, amt, reason, ts)
  return redis.call('XADD', KEYS[3], '*', 'kind', amt < 0 and 'debit' or 'credit', 'amt', amt, 'after', bal, 'reason', reason, 'ts', ts)
end
`;

// KEYS: deposit, balance, ledger, receipt seq. ARGV: now, payment reference ('' if none).
// A refund recorded before the payment (notices out of order) is taken off at once, as its own entry.
const PAID_LUA = `${LEDGER_ENTRY}
local st = redis.call('HGET', KEYS[1], 'status')
if not st then return {-1, ''} end
if st ~= 'pending' and st ~= 'failed' then return {0, st} end
local amt = tonumber(redis.call('HGET', KEYS[1], 'amount_cents'))
local id = redis.call('HGET', KEYS[1], 'id')
local n = redis.call('INCR', KEYS[4])
local bal = redis.call('INCRBY', KEYS[2], amt)
local eid = ledger(bal, amt, 'deposit #' .. id, ARGV[1])
redis.call('HSET', KEYS[1], 'status', 'paid', 'paid_at', ARGV[1], 'receipt_no', n, 'ledger_entry', eid)
if ARGV[2] ~= '' then redis.call('HSET', KEYS[1], 'payment_ref', ARGV[2]) end
local refunded = tonumber(redis.call('HGET', KEYS[1], 'refunded_cents') or '0')
if refunded > 0 then
  bal = redis.call('INCRBY', KEYS[2], -refunded)
  ledger(bal, -refunded, 'refund of deposit #' .. id, ARGV[1])
  if refunded >= amt then redis.call('HSET', KEYS[1], 'status', 'refunded') end
end
return {1, 'paid'}
`;

// KEYS: deposit, balance, ledger. ARGV: now, the provider's cumulative refunded cents.
// Cumulative, so a replayed or reordered refund notice takes off only what no earlier one did.
const REFUND_LUA = `${LEDGER_ENTRY}
local st = redis.call('HGET', KEYS[1], 'status')
if not st then return {-1, 0} end
local amt = tonumber(redis.call('HGET', KEYS[1], 'amount_cents'))
local done = tonumber(redis.call('HGET', KEYS[1], 'refunded_cents') or '0')
local target = math.min(tonumber(ARGV[2]), amt)
if target <= done then return {0, 0} end
local delta = target - done
redis.call('HSET', KEYS[1], 'refunded_cents', target, 'refunded_at', ARGV[1])
if st == 'paid' or st == 'refunded' then
  local bal = redis.call('INCRBY', KEYS[2], -delta)
  ledger(bal, -delta, 'refund of deposit #' .. redis.call('HGET', KEYS[1], 'id'), ARGV[1])
end
if target >= amt then redis.call('HSET', KEYS[1], 'status', 'refunded') end
return {1, delta}
`;

const FAIL_LUA = `
local st = redis.call('HGET', KEYS[1], 'status')
if st ~= 'pending' then return 0 end
redis.call('HSET', KEYS[1], 'status', 'failed', 'failed_at', ARGV[1])
return 1
`;

declare module 'ioredis' {
  interface RedisCommander<Context> {
    depositPaid(numKeys: number, ...args: (string | number)[]): Result<[number, string], Context>;
    depositRefund(numKeys: number, ...args: (string | number)[]): Result<[number, number], Context>;
    depositFail(numKeys: number, ...args: (string | number)[]): Result<number, Context>;
  }
}

export interface DepositRecord {
  id: number;
  advertiserId: number;
  status: DepositStatus;
  amountCents: number;
  refundedCents: number;
  provider: 'local' | 'stripe';
  checkoutUrl: string;
  providerSession: string;
  paymentRef: string;
  receiptNo: number | null;
  ledgerEntry: string;
  createdAt: string;
  paidAt: string | null;
}

export type PaidOutcome = 'credited' | 'already' | 'unknown';

const digest = (token: string): string => createHash('sha256').update(token).digest('hex');

export class DepositStore {
  constructor(private readonly redis: Redis) {
    redis.defineCommand('depositPaid', { lua: PAID_LUA });
    redis.defineCommand('depositRefund', { lua: REFUND_LUA });
    redis.defineCommand('depositFail', { lua: FAIL_LUA });
  }

  nextId(): Promise<number> {
    return this.redis.incr(idCounter('deposit'));
  }

  async create(d: {
    id: number;
    advertiserId: number;
    amountCents: number;
    provider: 'local' | 'stripe';
    checkoutUrl: string;
    providerSession: string;
  }): Promise<void> {
    const now = new Date().toISOString();
    // The owner and reference indexes first: a notice that arrives the moment the session exists finds its deposit.
    await this.redis.hset(DEPOSIT_OWNER, String(d.id), String(d.advertiserId));
    if (d.providerSession) await this.redis.hset(DEPOSIT_REFS, d.providerSession, String(d.id));
    await this.redis
      .multi()
      .hset(depositKey(d.advertiserId, d.id), {
        id: d.id,
        advertiser_id: d.advertiserId,
        status: 'pending',
        amount_cents: d.amountCents,
        refunded_cents: 0,
        provider: d.provider,
        checkout_url: d.checkoutUrl,
        provider_session: d.providerSession,
        created_at: now,
      })
      .zadd(depositListKey(d.advertiserId), d.id, String(d.id))
      .exec();
  }

  async ownerOf(id: number): Promise<number | undefined> {
    const v = await this.redis.hget(DEPOSIT_OWNER, String(id));
    return v ? Number(v) : undefined;
  }

  async byRef(ref: string): Promise<number | undefined> {
    const v = await this.redis.hget(DEPOSIT_REFS, ref);
    return v ? Number(v) : undefined;
  }

  addRef(ref: string, id: number): Promise<number> {
    return this.redis.hset(DEPOSIT_REFS, ref, String(id));
  }

  async get(id: number): Promise<DepositRecord | undefined> {
    const adv = await this.ownerOf(id);
    if (adv === undefined) return undefined;
    return this.read(adv, id);
  }

  private async read(adv: number, id: number): Promise<DepositRecord | undefined> {
    const h = await this.redis.hgetall(depositKey(adv, id));
    return h.id ? toRecord(h) : undefined;
  }

  /** Newest first. */
  async list(adv: number, limit: number): Promise<DepositRecord[]> {
    const ids = await this.redis.zrevrange(depositListKey(adv), 0, limit - 1);
    const rows = await Promise.all(ids.map((id) => this.read(adv, Number(id))));
    return rows.filter((r): r is DepositRecord => r !== undefined);
  }

  /** Credits the deposit if it was not credited yet; `already` for every later call. */
  async markPaid(id: number, paymentRef = ''): Promise<PaidOutcome> {
    const adv = await this.ownerOf(id);
    if (adv === undefined) return 'unknown';
    const [r] = await this.redis.depositPaid(
      4,
      depositKey(adv, id),
      balanceKey(adv),
      ledgerKey(adv),
      receiptSeqKey(adv),
      new Date().toISOString(),
      paymentRef,
    );
    return r === 1 ? 'credited' : r === 0 ? 'already' : 'unknown';
  }

  async markFailed(id: number): Promise<boolean> {
    const adv = await this.ownerOf(id);
    if (adv === undefined) return false;
    return (await this.redis.depositFail(1, depositKey(adv, id), new Date().toISOString())) === 1;
  }

  /** Records the provider's total refunded so far; returns the cents newly taken off the balance. */
  async refundTo(id: number, refundedTotalCents: number): Promise<number> {
    const adv = await this.ownerOf(id);
    if (adv === undefined) return 0;
    const [, delta] = await this.redis.depositRefund(
      3,
      depositKey(adv, id),
      balanceKey(adv),
      ledgerKey(adv),
      new Date().toISOString(),
      refundedTotalCents,
    );
    return Number(delta);
  }

  // ---- the local provider's single-use checkout tokens (stored as digests: the URL is the secret)

  setLocalToken(token: string, id: number): Promise<unknown> {
    return this.redis.set(localTokenKey(digest(token)), String(id), 'EX', 30 * 86_400);
  }

  async localTokenDeposit(token: string): Promise<number | undefined> {
    const v = await this.redis.get(localTokenKey(digest(token)));
    return v ? Number(v) : undefined;
  }
}

function toRecord(h: Record<string, string>): DepositRecord {
  const status = DEPOSIT_STATUSES.find((s) => s === h.status) ?? 'pending';
  return {
    id: Number(h.id),
    advertiserId: Number(h.advertiser_id),
    status,
    amountCents: Number(h.amount_cents),
    refundedCents: Number(h.refunded_cents ?? 0),
    provider: h.provider === 'stripe' ? 'stripe' : 'local',
    checkoutUrl: h.checkout_url ?? '',
    providerSession: h.provider_session ?? '',
    paymentRef: h.payment_ref ?? '',
    receiptNo: h.receipt_no ? Number(h.receipt_no) : null,
    ledgerEntry: h.ledger_entry ?? '',
    createdAt: h.created_at ?? '',
    paidAt: h.paid_at ?? null,
  };
}

export const receiptNumber = (adv: number, n: number): string => `R${adv}-${String(n).padStart(6, '0')}`;

export function toDeposit(r: DepositRecord): Deposit {
  return {
    id: r.id,
    status: r.status,
    amount_cents: r.amountCents,
    amount_usd: centsToUsd(r.amountCents),
    refunded_cents: r.refundedCents,
    provider: r.provider,
    checkout_url: r.status === 'pending' ? r.checkoutUrl : null,
    receipt_number: r.receiptNo === null ? null : receiptNumber(r.advertiserId, r.receiptNo),
    created_at: r.createdAt,
    paid_at: r.paidAt,
  };
}
