import { centsToNano } from '@adnet/schemas/money';
import { advertiserHoldKey, advertiserPendingKey, balanceKey, campaignPoolKey, ledgerKey } from '@adnet/schemas/redis-keys';
import type { Redis } from 'ioredis';
import type { ClickCharge, ClickCharger } from '../auction/ports.ts';
import { defineBudgetScripts } from './budget-scripts.ts';

/** As long as a campaign's daily pool is kept (budget-slices.ts). */
const POOL_TTL_MS = 3 * 86_400_000;

/**
 * CPC clicks charged in Redis before they are billed: first the campaign's
 * daily pool, then the advertiser's balance, each only if it has room beside
 * the holds every engine keeps for bids in flight; a click the advertiser
 * cannot pay gives the campaign its charge back. Both checks are atomic
 * scripts, so concurrent clicks on any number of engines never overspend.
 */
export class RedisClickCharger implements ClickCharger {
  constructor(private readonly redis: Redis) {
    defineBudgetScripts(redis);
  }

  async charge(c: ClickCharge): Promise<'charged' | 'budget_exhausted' | 'balance_exhausted'> {
    const pool = campaignPoolKey(c.campaignId, c.day);
    if ((await this.redis.budChargeCampaign(1, pool, c.nano, centsToNano(c.dailyBudgetCents), POOL_TTL_MS)) !== 1) return 'budget_exhausted';
    const adv = c.advertiserId;
    const debited = await this.redis
      .budChargeAdvertiser(
        4,
        advertiserHoldKey(adv),
        balanceKey(adv),
        advertiserPendingKey(adv),
        ledgerKey(adv),
        c.nano,
        'click spend',
        new Date(c.at).toISOString(),
      )
      .catch(async (err: unknown) => {
        await this.redis.budUnchargeCampaign(1, pool, c.nano);
        throw err;
      });
    if (debited >= 0) return 'charged';
    await this.redis.budUnchargeCampaign(1, pool, c.nano);
    return 'balance_exhausted';
  }
}
