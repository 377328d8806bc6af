import type { StoredCampaign } from '@adnet/schemas/api';
import { centsToNano, nanoToCentsFloor } from '@adnet/schemas/money';
import type { StoredSite, StoredZone } from '@adnet/schemas/publisher';
import { NO_ZONE_BIDS, cpaCountsKey, parseCpaCounts } from '@adnet/schemas/target-cpa';
import type { ZoneBidRow, ZoneBids, ZoneBidsAnswer } from '@adnet/schemas/target-cpa';
import { decideCampaign } from '../domain/target-cpa.ts';
import type { CpaGoal, ZoneCounts } from '../domain/target-cpa.ts';
import type { ConfigStore } from '../storage/config-store.ts';
import { ConflictError } from '../storage/config-store.ts';
import { cfgIndex } from '../storage/keys.ts';
import type { Redis } from '../storage/redis.ts';

// The target CPA's storage side (docs/delivery.md, "Target CPA"): the per-zone counts the engines and the postbacks
// add to (`cpaCountsKey`), the decisions as config kind `campaign_zone_bids` (mirrored by every engine), and the
// campaigns that have a target (an index set beside the campaigns, written with them).

/** The campaigns with a target CPA: the controller's work list. In the config store's slot: written with the campaign. */
export const CPA_CAMPAIGNS_KEY = cfgIndex('target-cpa', 'all');

/** What the target CPA's reads and writes need. */
export interface CpaDeps {
  redis: Redis;
  configStore: ConfigStore;
}

export function goalOf(c: StoredCampaign): CpaGoal | undefined {
  if (!c.target_cpa_cents) return undefined;
  return {
    targetCpaNano: centsToNano(c.target_cpa_cents),
    testBudgetNano: centsToNano(c.cpa_test_budget_cents ?? 2 * c.target_cpa_cents),
    maxBidMicroCents: c.bid_micro_cents,
  };
}

export async function readCounts(redis: Redis, campaignId: number): Promise<Map<number, ZoneCounts>> {
  return parseCpaCounts(await redis.hgetall(cpaCountsKey(campaignId)));
}

/** One pass over one campaign: decide every zone and write the decisions when they changed. True when written. */
export async function stepCampaign(deps: CpaDeps, campaign: StoredCampaign): Promise<boolean> {
  const goal = goalOf(campaign);
  if (!goal) return false;
  const counts = await readCounts(deps.redis, campaign.id);
  const stored = await deps.configStore.read<ZoneBids>('campaign_zone_bids', campaign.id);
  const prev = stored?.value ?? NO_ZONE_BIDS;
  const unknown = [...counts.keys()].filter((id) => !prev.zones.some((z) => z.zone_id === id));
  const zones = await deps.configStore.readEach<StoredZone>('zone', unknown);
  const subids = new Map(unknown.map((id, i) => [id, zones[i]?.subid]));
  const { entries } = decideCampaign({ goal, counts, prev: prev.zones, subidOf: (id) => subids.get(id) });
  if (sameEntries(entries, prev)) return false;
  try {
    await deps.configStore.commit('campaign_zone_bids', campaign.id, {
      expectedRev: stored?.rev ?? 0,
      value: { zones: entries } satisfies ZoneBids,
    });
    return true;
  } catch (e) {
    // Another admin's pass wrote it since the read: its decision stands, this one is dropped.
    if (e instanceof ConflictError) return false;
    throw e;
  }
}

function sameEntries(next: ZoneBids['zones'], prev: ZoneBids): boolean {
  if (next.length !== prev.zones.length) return false;
  return next.every((e, i) => {
    const p = prev.zones[i];
    return (
      p !== undefined &&
      p.zone_id === e.zone_id &&
      p.state === e.state &&
      p.bid_micro_cents === e.bid_micro_cents &&
      p.stepped_at_spend_nano === e.stepped_at_spend_nano
    );
  });
}

/** A campaign whose target was turned off: its decisions go (the engines drop them) and its counts start afresh. */
export async function dropZoneBids(deps: CpaDeps, campaignId: number): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    const stored = await deps.configStore.read<ZoneBids>('campaign_zone_bids', campaignId);
    if (!stored) break;
    try {
      await deps.configStore.remove('campaign_zone_bids', campaignId, {
        expectedRev: stored.rev,
        value: stored.value,
      });
      break;
    } catch (e) {
      if (!(e instanceof ConflictError) || attempt >= 16) throw e;
    }
  }
  await deps.redis.del(cpaCountsKey(campaignId));
}

/** `GET /api/adv/campaigns/{id}/zone-bids`: the zones with counts or a decision, by zone id. */
export async function readZoneBids(deps: CpaDeps, campaign: StoredCampaign): Promise<ZoneBidsAnswer> {
  const goal = goalOf(campaign);
  const answer = {
    target_cpa_cents: campaign.target_cpa_cents ?? null,
    cpa_test_budget_cents: goal ? (campaign.cpa_test_budget_cents ?? null) : null,
  };
  if (!goal) return { ...answer, conversions: 0, zones: [] };
  const counts = await readCounts(deps.redis, campaign.id);
  const stored = (await deps.configStore.read<ZoneBids>('campaign_zone_bids', campaign.id))?.value ?? NO_ZONE_BIDS;
  // What the controller would decide now, for the zones it has not decided yet (testing), with its stored decisions.
  const { decisions, conversions } = decideCampaign({ goal, counts, prev: stored.zones, subidOf: () => undefined });
  const decided = new Map(stored.zones.map((z) => [z.zone_id, z]));
  const zoneIds = [...decisions.keys()];
  const zones = await deps.configStore.readEach<StoredZone>('zone', zoneIds);
  const siteIds = [...new Set(zones.flatMap((z) => (z ? [z.site_id] : [])))];
  const sites = new Map(
    (await deps.configStore.readEach<StoredSite>('site', siteIds)).map((s, i) => [siteIds[i], s?.domain ?? '']),
  );
  const rows = zoneIds.map((zoneId, i): ZoneBidRow => {
    const c = counts.get(zoneId) ?? { spendNano: 0, conversions: 0 };
    const d = decided.get(zoneId);
    const now = decisions.get(zoneId);
    const zone = zones[i];
    const spendCents = nanoToCentsFloor(c.spendNano);
    return {
      zone_id: zoneId,
      site_domain: zone ? (sites.get(zone.site_id) ?? '') : '',
      state: d?.state ?? 'testing',
      bid_micro_cents: d ? d.bid_micro_cents : campaign.bid_micro_cents,
      spend_cents: spendCents,
      conversions: c.conversions,
      ecpa_cents: c.conversions > 0 ? Math.round(c.spendNano / c.conversions / 1e7) : null,
      reason: d?.reason ?? (now?.state === 'testing' ? now.reason : 'not decided yet: the next pass decides'),
    };
  });
  return { ...answer, conversions, zones: rows };
}
