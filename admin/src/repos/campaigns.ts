import type { Campaign, StoredCampaign } from '@adnet/schemas/api';
import { budgetDay } from '@adnet/schemas/budget-day';
import { forbidden, notFound } from '../errors.ts';
import type { Services } from '../services.ts';
import { centsToNano, nanoToCentsFloor } from '@adnet/schemas/money';
import { chargeUnitNano, deliveryOf } from '@adnet/schemas/delivery';
import { campaignScheduleReason } from '@adnet/schemas/schedule';
import { NO_SOURCES } from '@adnet/schemas/source-lists';
import { cfgIndex } from '../storage/keys.ts';
import { readManySources } from './campaign-sources.ts';

export const advertiserCampaignsIndex = (advertiserId: number): string => cfgIndex('adv-campaigns', advertiserId);
export const campaignCreativesIndex = (campaignId: number): string => cfgIndex('campaign-creatives', campaignId);
export const campaignApprovedIndex = (campaignId: number): string => cfgIndex('campaign-approved', campaignId);

/** 404 when it does not exist, 403 when it is another advertiser's. */
export async function loadOwnedCampaign(svc: Services, advertiserId: number, id: number): Promise<StoredCampaign> {
  const found = await svc.configStore.read<StoredCampaign>('campaign', id);
  if (!found) throw notFound('Campaign');
  if (found.value.advertiser_id !== advertiserId) throw forbidden();
  return found.value;
}

/** Adds what is live: today's spend, which the engines count in Redis, and whether the campaign serves. */
export async function withSpend(svc: Services, campaigns: StoredCampaign[]): Promise<Campaign[]> {
  if (campaigns.length === 0) return [];
  const now = Date.now();
  const day = budgetDay(now);
  const ids = campaigns.map((c) => c.id);
  // Spend is in nano-dollars. The whole pool: besides `spent`, the engines' holds decide whether a charge still fits.
  const pools = await svc.spend.pools(ids, day);
  const approved = await Promise.all(ids.map((id) => svc.configStore.countIndexed(campaignApprovedIndex(id))));
  const lifetime = await svc.spend.lifetime(ids);
  const advertisers = [...new Set(campaigns.map((c) => c.advertiser_id))];
  const balances = new Map(await Promise.all(advertisers.map(async (a) => [a, await svc.ledger.balance(a)] as const)));
  const sources = await readManySources(svc, ids);
  return campaigns.map((c, i) => {
    const pool = pools[i] ?? {};
    const dailySpentNano = Number(pool.spent ?? 0);
    const totalSpentNano = Number(lifetime[i] ?? 0);
    const holds = { heldNano: Number(pool.held ?? 0), largestHoldNano: largestHold(pool) };
    const delivery = deliveryOf({
      status: c.status,
      approvedCreatives: approved[i] ?? 0,
      balanceCents: balances.get(c.advertiser_id) ?? 0,
      daily: { limitNano: centsToNano(c.daily_budget_cents), spentNano: dailySpentNano, ...holds },
      total:
        c.total_budget_cents === null || c.total_budget_cents === undefined
          ? undefined
          : { limitNano: centsToNano(c.total_budget_cents), spentNano: totalSpentNano, ...holds },
      unitNano: chargeUnitNano(c),
      bidType: c.bid_type,
      // The engine's own schedule filter, so a dayparted campaign out of hours does not show as serving.
      schedule: campaignScheduleReason(c, now),
    });
    // Stored before bid adjustments existed: none.
    return {
      ...c,
      bid_adjustments: c.bid_adjustments ?? [],
      interstitial: c.interstitial ?? false,
      target_cpa_cents: c.target_cpa_cents ?? null,
      cpa_test_budget_cents: c.cpa_test_budget_cents ?? null,
      // Stored before audiences existed: none.
      audiences_include: c.audiences_include ?? [],
      audiences_exclude: c.audiences_exclude ?? [],
      sources: sources[i] ?? NO_SOURCES,
      daily_spent_cents: nanoToCentsFloor(dailySpentNano),
      daily_spent_nano: dailySpentNano,
      total_spent_cents: nanoToCentsFloor(totalSpentNano),
      delivery,
    };
  });
}

/** The largest one engine's hold in a pool hash (fields `e:<engine>`). */
function largestHold(pool: Record<string, string>): number {
  let largest = 0;
  for (const [field, value] of Object.entries(pool))
    if (field.startsWith('e:')) largest = Math.max(largest, Number(value));
  return largest;
}

export async function listCampaigns(svc: Services, advertiserId: number): Promise<StoredCampaign[]> {
  const campaigns = await svc.configStore.readIndexed<StoredCampaign>(
    'campaign',
    advertiserCampaignsIndex(advertiserId),
  );
  return campaigns.sort((a, b) => a.id - b.id);
}
