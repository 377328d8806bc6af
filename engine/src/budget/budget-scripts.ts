import type { Redis, Result } from 'ioredis';
import { defineRequestScript } from '../store/send-at-once.ts';

// Budget pools in Redis. A pool hash holds `spent` (campaign pools only),
// `held` (the sum of all engines' holds) and `e:<engine>` (one engine's hold).
// An engine reserves a slice into its hold and spends from it locally; win
// notices add spend and release the bidding engine's hold, so spend + holds
// never exceed the limit. A CPC campaign's pool is the exception: its
// impressions are charged nothing, so its holds only pace the bidding and
// reserve nothing; its clicks are charged straight into the pool against the
// spend alone (CHARGE_CAMPAIGN). Each script touches one cluster slot
// ({c:<id>} or {adv:<id>}).

// Re-base: the engine says what it holds locally and what its bids took
// (outstanding); wins settled since its last re-base lowered its hold, and that
// difference (`released`) is what those wins covered. Its hold becomes
// local + still-outstanding + grant. Returns {grant, released}.
const REBASE = `
local e = 'e:' .. ARGV[1]
local old = tonumber(redis.call('HGET', KEYS[1], e) or '0')
local released = math.max(0, tonumber(ARGV[5]) - old)
local keep = tonumber(ARGV[3]) + math.max(0, tonumber(ARGV[4]) - released)
local held = tonumber(redis.call('HGET', KEYS[1], 'held') or '0') - old
`;

/**
 * KEYS: pool, lifetime. ARGV: engine, want, local, outstanding, lastHold, limit, ttlMs, lifetime limit
 * (-1: none), one click's price for a CPC campaign (-1: a CPM campaign). With a lifetime limit, a grant
 * also fits within it beside today's holds. A CPC campaign's holds reserve nothing its clicks spend: it is
 * granted a whole slice while both limits have room for one more click beside the spend, and nothing after.
 */
const RESERVE_CAMPAIGN = `${REBASE}
local spent = tonumber(redis.call('HGET', KEYS[1], 'spent') or '0')
local click = tonumber(ARGV[9])
local hold = held + keep
if click >= 0 then hold = 0 end
local avail = tonumber(ARGV[6]) - spent - hold
if tonumber(ARGV[8]) >= 0 then
  local total = tonumber(redis.call('HGET', KEYS[2], 'spent') or '0')
  avail = math.min(avail, tonumber(ARGV[8]) - total - hold)
end
if click >= 0 then
  if avail >= math.max(click, 1) then avail = tonumber(ARGV[2]) else avail = 0 end
end
local grant = math.min(tonumber(ARGV[2]), math.max(avail, 0))
redis.call('HSET', KEYS[1], e, keep + grant, 'held', held + keep + grant)
redis.call('PEXPIRE', KEYS[1], ARGV[7])
return {grant, released}
`;

/** KEYS: hold, balance (cents), pending spend (nano). ARGV: engine, want, local, outstanding, lastHold. */
const RESERVE_ADVERTISER = `${REBASE}
local avail = tonumber(redis.call('GET', KEYS[2]) or '0') * 10000000 - tonumber(redis.call('GET', KEYS[3]) or '0') - held - keep
local grant = math.min(tonumber(ARGV[2]), math.max(avail, 0))
redis.call('HSET', KEYS[1], e, keep + grant, 'held', held + keep + grant)
return {grant, released}
`;

const RELEASE = `
local function release(pool, from)
  for i = from, #ARGV, 2 do
    local e = 'e:' .. ARGV[i]
    local amt = tonumber(ARGV[i + 1])
    local h = tonumber(redis.call('HGET', pool, e) or '0')
    local rel = math.min(h, amt)
    if rel > 0 then
      redis.call('HINCRBY', pool, e, -rel)
      redis.call('HINCRBY', pool, 'held', -rel)
    end
  end
end
`;

// A spend batch carries the sending engine's id and a sequence number, and the
// last one applied is kept in the hash (field a:<engine>): a batch retried after
// a lost answer (a failover, a dropped connection) is applied once. An engine
// sends one batch per pool at a time, so its numbers arrive in order.
const ONCE = `
local function first_time(hash, engine, seq)
  local f = 'a:' .. engine
  if tonumber(redis.call('HGET', hash, f) or '0') >= tonumber(seq) then return false end
  redis.call('HSET', hash, f, seq)
  return true
end
`;

// Adds `amt` (nano) to the advertiser's pending spend and moves whole cents from it to the balance as one
// ledger debit (`reason`, `ts`); answers the cents moved.
const DEBIT = `
local function debit(balance, pending, ledger, amt, reason, ts)
  local p = redis.call('INCRBY', pending, amt)
  local cents = math.floor(p / 10000000)
  if cents > 0 then
    redis.call('DECRBY', pending, cents * 10000000)
    local bal = redis.call('DECRBY', balance, cents)
    redis.call('XADD', ledger, '*', 'kind', 'debit', 'amt', -cents, 'after', bal, 'reason', reason, 'ts', ts)
  end
  return cents
end
`;

/** KEYS: pool, lifetime. ARGV: total, ttlMs, sender engine, batch seq, then (engine, amount) pairs. Returns 0 for a repeat. */
const SPEND_CAMPAIGN = `${RELEASE}${ONCE}
if not first_time(KEYS[1], ARGV[3], ARGV[4]) then return 0 end
release(KEYS[1], 5)
redis.call('HINCRBY', KEYS[1], 'spent', ARGV[1])
redis.call('HINCRBY', KEYS[2], 'spent', ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 1
`;

/**
 * KEYS: hold, balance, pending, ledger. ARGV: total, reason, time, sender engine, batch seq, then
 * (engine, amount) pairs. Whole cents move from the pending counter to the balance as one ledger debit.
 */
const SPEND_ADVERTISER = `${RELEASE}${ONCE}${DEBIT}
if not first_time(KEYS[1], ARGV[4], ARGV[5]) then return 0 end
release(KEYS[1], 6)
return debit(KEYS[2], KEYS[3], KEYS[4], ARGV[1], ARGV[2], ARGV[3])
`;

// A CPC click (or an ad counted after its hold lapsed) is charged straight into a pool, not through a
// slice (one click may cost more than a slice). A CPM campaign's charge fits only where spent + every
// engine's holds + its price stay within the limit, so the holds that cover bids in flight are never
// spent twice; a CPC campaign's holds cover nothing that will be charged, so its click fits where
// spent + its price do. Either way the check and the charge are one script: never past the limit.

// The campaign's side of a direct charge: whether `amt` fits its daily pool and lifetime cap (beside every
// engine's holds when `count_holds` is '1', a CPM campaign), and the charge itself.
const CAMPAIGN_CHARGE = `
local function campaign_fits(pool, lifetime, amt, limit, lifetime_limit, count_holds)
  local held = 0
  if count_holds == '1' then held = tonumber(redis.call('HGET', pool, 'held') or '0') end
  if tonumber(redis.call('HGET', pool, 'spent') or '0') + held + amt > tonumber(limit) then return false end
  if tonumber(lifetime_limit) >= 0 and tonumber(redis.call('HGET', lifetime, 'spent') or '0') + held + amt > tonumber(lifetime_limit) then return false end
  return true
end
local function charge_campaign(pool, lifetime, amt, ttl)
  redis.call('HINCRBY', pool, 'spent', amt)
  redis.call('HINCRBY', lifetime, 'spent', amt)
  redis.call('PEXPIRE', pool, ttl)
end
`;

// The advertiser's side: whether `amt` fits balance - pending spend - every engine's holds (so the balance
// never goes below zero).
const ADVERTISER_FITS = `
local function advertiser_fits(hold, balance, pending, amt)
  local held = tonumber(redis.call('HGET', hold, 'held') or '0')
  local bal = tonumber(redis.call('GET', balance) or '0')
  return bal * 10000000 - tonumber(redis.call('GET', pending) or '0') - held >= amt
end
`;

/**
 * KEYS: campaign pool, lifetime. ARGV: amount, limit, ttlMs, lifetime limit (-1: none), 1 to count the
 * engines' holds (CPM) or 0 (CPC). 1 when charged, 0 when it does not fit.
 */
const CHARGE_CAMPAIGN = `${CAMPAIGN_CHARGE}
local amt = tonumber(ARGV[1])
if not campaign_fits(KEYS[1], KEYS[2], amt, ARGV[2], ARGV[4], ARGV[5]) then return 0 end
charge_campaign(KEYS[1], KEYS[2], amt, ARGV[3])
return 1
`;

/** KEYS: campaign pool, lifetime. ARGV: amount. Gives a charge back when its advertiser could not pay. */
const UNCHARGE_CAMPAIGN = `
redis.call('HINCRBY', KEYS[1], 'spent', -tonumber(ARGV[1]))
redis.call('HINCRBY', KEYS[2], 'spent', -tonumber(ARGV[1]))
return 1
`;

/**
 * KEYS: hold, balance, pending, ledger. ARGV: amount, reason, time. Charges the advertiser only while
 * balance - pending spend - every engine's holds covers it (so the balance never goes below zero);
 * whole cents move to the balance as one ledger debit. -1 when it does not fit, else the cents debited.
 */
const CHARGE_ADVERTISER = `${DEBIT}${ADVERTISER_FITS}
if not advertiser_fits(KEYS[1], KEYS[2], KEYS[3], tonumber(ARGV[1])) then return -1 end
return debit(KEYS[2], KEYS[3], KEYS[4], ARGV[1], ARGV[2], ARGV[3])
`;

/**
 * One server: both checks and both charges of CHARGE_CAMPAIGN then CHARGE_ADVERTISER in one script (their keys
 * are in different cluster slots, so a cluster runs the two). Nothing is written unless both fit, where the two
 * scripts charged the campaign and gave it back when the advertiser could not pay. KEYS: campaign pool, lifetime,
 * advertiser hold, balance, pending, ledger. ARGV: amount, limit, ttlMs, lifetime limit (-1: none), reason, time,
 * 1 to count the campaign's holds (CPM) or 0 (CPC); the advertiser's holds always count.
 * -2 when the campaign's budget has no room, -1 when the advertiser's balance has none, else the cents debited.
 */
const CHARGE_BOTH = `${DEBIT}${CAMPAIGN_CHARGE}${ADVERTISER_FITS}
local amt = tonumber(ARGV[1])
if not campaign_fits(KEYS[1], KEYS[2], amt, ARGV[2], ARGV[4], ARGV[7]) then return -2 end
if not advertiser_fits(KEYS[3], KEYS[4], KEYS[5], amt) then return -1 end
charge_campaign(KEYS[1], KEYS[2], amt, ARGV[3])
return debit(KEYS[4], KEYS[5], KEYS[6], ARGV[1], ARGV[5], ARGV[6])
`;

declare module 'ioredis' {
  interface RedisCommander<Context> {
    budReserveCampaign(numKeys: number, ...args: (string | number)[]): Result<[number, number], Context>;
    budReserveAdvertiser(numKeys: number, ...args: (string | number)[]): Result<[number, number], Context>;
    budSpendCampaign(numKeys: number, ...args: (string | number)[]): Result<number, Context>;
    budSpendAdvertiser(numKeys: number, ...args: (string | number)[]): Result<number, Context>;
    budChargeCampaign(numKeys: number, ...args: (string | number)[]): Result<number, Context>;
    budUnchargeCampaign(numKeys: number, ...args: (string | number)[]): Result<number, Context>;
    budChargeAdvertiser(numKeys: number, ...args: (string | number)[]): Result<number, Context>;
    budChargeBoth(numKeys: number, ...args: (string | number)[]): Result<number, Context>;
  }
}

export function defineBudgetScripts(redis: Redis): void {
  redis.defineCommand('budReserveCampaign', { lua: RESERVE_CAMPAIGN });
  redis.defineCommand('budReserveAdvertiser', { lua: RESERVE_ADVERTISER });
  redis.defineCommand('budSpendCampaign', { lua: SPEND_CAMPAIGN });
  redis.defineCommand('budSpendAdvertiser', { lua: SPEND_ADVERTISER });
  // The direct charges: one call per charge, asked for by a click or a late impression.
  defineRequestScript(redis, 'budChargeCampaign', CHARGE_CAMPAIGN);
  defineRequestScript(redis, 'budUnchargeCampaign', UNCHARGE_CAMPAIGN);
  defineRequestScript(redis, 'budChargeAdvertiser', CHARGE_ADVERTISER);
  defineRequestScript(redis, 'budChargeBoth', CHARGE_BOTH);
}
