import { centsToNano } from '@adnet/schemas/money';
import {
  advertiserHoldKey,
  advertiserPendingKey,
  balanceKey,
  campaignPoolKey,
  ledgerKey,
  totalKeyOfPool,
} from '@adnet/schemas/redis-keys';
import type { Redis } from 'ioredis';
import type { DirectCharge, DirectCharger } from '../auction/ports.ts';
import type { MovedMarks } from '../store/moved.ts';
import { defineBudgetScripts } from './budget-scripts.ts';

/** As long as a campaign's daily pool is kept (budget-slices.ts). */
const POOL_TTL_MS = 3 * 86_400_000;

/**
 * Charges taken in Redis before they are billed (CPC clicks, and ads counted after their bid's hold
 * lapsed): first the campaign's daily pool, then the advertiser's balance, each only if it has room
 * beside the holds every engine keeps for bids in flight (a CPC campaign's own pools: beside the spend
 * alone, as its holds cover no charge); a charge the advertiser cannot pay gives the campaign its share
 * back. Both checks are atomic scripts (one script on one server), so concurrent charges on any number
 * of engines never overspend.
 */
export class RedisDirectCharger implements DirectCharger {
  /** `spentMarks`: where a charged campaign is marked for the pacers; sent with the next spend flush (budget-slices.ts). */
  constructor(
    private readonly redis: Redis,
    private readonly spentMarks?: MovedMarks,
  ) {
    defineBudgetScripts(redis);
  }

  async charge(c: DirectCharge): Promise<'charged' | 'budget_exhausted' | 'balance_exhausted'> {
    const pool = campaignPoolKey(c.campaignId, c.day);
    const total = totalKeyOfPool(pool);
    const lifetime = c.totalBudgetCents < 0 ? -1 : centsToNano(c.totalBudgetCents);
    const countHolds = c.bidType === 'cpm' ? 1 : 0;
    // One server: one script and one round trip (a CPC click's charge waited on two in sequence).
    if (!this.redis.isCluster) return this.chargeAtOnce(c, pool, total, lifetime, countHolds);
    // Marked also when the reply is lost (the charge may have landed); a mark for nothing costs one read.
    const charged = await this.redis
      .budChargeCampaign(2, pool, total, c.nano, centsToNano(c.dailyBudgetCents), POOL_TTL_MS, lifetime, countHolds)
      .finally(() => this.spentMarks?.add(c.campaignId));
    if (charged !== 1) return 'budget_exhausted';
    const adv = c.advertiserId;
    const debited = await this.redis
      .budChargeAdvertiser(
        4,
        advertiserHoldKey(adv),
        balanceKey(adv),
        advertiserPendingKey(adv),
        ledgerKey(adv),
        c.nano,
        c.reason,
        new Date(c.at).toISOString(),
      )
      .catch(async (err: unknown) => {
        await this.uncharge(pool, total, c);
        throw err;
      });
    if (debited >= 0) return 'charged';
    await this.uncharge(pool, total, c);
    return 'balance_exhausted';
  }

  // eslint-disable-next-line @typescript-eslint/max-params -- hot path: runs for every directly charged win
  private async chargeAtOnce(
    c: DirectCharge,
    pool: string,
    total: string,
    lifetime: number,
    countHolds: 0 | 1,
  ): Promise<'charged' | 'budget_exhausted' | 'balance_exhausted'> {
    const adv = c.advertiserId;
    const result = await this.redis
      .budChargeBoth(
        6,
        pool,
        total,
        advertiserHoldKey(adv),
        balanceKey(adv),
        advertiserPendingKey(adv),
        ledgerKey(adv),
        c.nano,
        centsToNano(c.dailyBudgetCents),
        POOL_TTL_MS,
        lifetime,
        c.reason,
        new Date(c.at).toISOString(),
        countHolds,
      )
      .finally(() => this.spentMarks?.add(c.campaignId));
    return result >= 0 ? 'charged' : result === -1 ? 'balance_exhausted' : 'budget_exhausted';
  }

  private async uncharge(pool: string, total: string, c: DirectCharge): Promise<void> {
    await this.redis.budUnchargeCampaign(2, pool, total, c.nano);
    // Marked again: a flush may have sent the charge's mark already, and a pacer read the charged spend.
    this.spentMarks?.add(c.campaignId);
  }
}
