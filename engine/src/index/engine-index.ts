import type { Creative, StoredCampaign } from '@adnet/schemas/api';
import type { ConfigKind } from '@adnet/schemas/changes';
import type { StoredDeal } from '@adnet/schemas/deals';
import type { DemandPartner } from '@adnet/schemas/demand';
import type { Partner } from '@adnet/schemas/partners';
import type { StoredSite, StoredZone } from '@adnet/schemas/publisher';
import { isSafeHttpUrl } from '@adnet/schemas/url';
import type { BlockList } from 'node:net';
import { addressList, inList } from '../net/address-list.ts';
import { inventoryControls } from './inventory-controls.ts';
import type { InventoryControls } from './inventory-controls.ts';
import { byExchangeRank, rankCandidates } from './rank.ts';
import { slotFor } from './slots.ts';
import { domainSource } from '../inventory/source.ts';
import { Candidate } from './candidate.ts';
import { compileSources } from './source-controls.ts';
import type { SourceList } from '@adnet/schemas/source-lists';
import type { PaceHandle } from './candidate.ts';

export interface PartnerEntry {
  partner: Partner;
  allow: BlockList;
}

/** What the hot path reads: immutable, replaced whole when configuration changes. */
export interface EngineIndex {
  /** Change-log position this index reflects. */
  readonly seq: string;
  /** `${slot}|${country}` and `${slot}|*` (no geo restriction) to candidates, each list ranked best first. */
  readonly slots: ReadonlyMap<string, readonly Candidate[]>;
  /** The same lists in the order exchange traffic walks them (the same array where bid adjustments change nothing). */
  readonly exchangeSlots: ReadonlyMap<string, readonly Candidate[]>;
  readonly partners: readonly PartnerEntry[];
  /** Enabled demand partners (DSPs our zones' impressions are offered to), by id. */
  readonly demandPartners: readonly DemandPartner[];
  readonly campaigns: ReadonlyMap<number, StoredCampaign>;
  readonly candidateCount: number;
  /** Our zones by subid (OpenRTB `imp.tagid`), with whether they may serve now. */
  readonly zones: ReadonlyMap<string, ZoneEntry>;
  readonly sites: ReadonlyMap<number, StoredSite>;
  /** Every creative, served or not: a click on yesterday's ad still needs its landing page. */
  readonly creatives: ReadonlyMap<number, Creative>;
  /** Each serving campaign's pace (even pacing sets it; pacing/pacer.ts). */
  readonly paces: ReadonlyMap<number, PaceHandle>;
  /** A site's own controls (its zones' defaults), for OpenRTB requests that name the site but no zone. */
  readonly siteControls: ReadonlyMap<number, InventoryControls>;
  /** Private-marketplace deals by the id partners send (`imp.pmp.deals[].id`). */
  readonly deals: ReadonlyMap<string, DealEntry>;
}

/** A deal as the bid path reads it: who may offer it, who may bid on it, at what floor. */
export interface DealEntry {
  readonly id: string;
  readonly floorMicroCents: number;
  readonly partners: ReadonlySet<number>;
  readonly campaigns: ReadonlySet<number>;
  /** The deal's campaigns' candidates alone, keyed and ranked as `EngineIndex.slots`: a deal auction walks only these. */
  readonly slots: ReadonlyMap<string, readonly Candidate[]>;
  /** The same lists in the order exchange traffic walks (`EngineIndex.exchangeSlots`). */
  readonly exchangeSlots: ReadonlyMap<string, readonly Candidate[]>;
}

export interface ZoneEntry {
  zone: StoredZone;
  /** Active zone on an approved site. */
  serving: boolean;
  /** The zone's controls with its site's defaults applied. */
  controls: InventoryControls;
  /** The `source` its ads are counted under: its site's registrable domain (inventory/source.ts). */
  source: string;
}

/** The mirrored configuration by kind; source lists and demand partners may be absent (fixtures, and logs written before they existed). */
export type ConfigState = Record<Exclude<ConfigKind, 'campaign_sources' | 'demand_partner'>, Map<number, unknown>> & {
  campaign_sources?: Map<number, unknown>;
  demand_partner?: Map<number, unknown>;
};

function partnerEntry(partner: Partner): PartnerEntry {
  return { partner, allow: addressList(partner.allowed_ips) };
}

/**
 * A creative whose stored URLs are not plain http(s) (one kept before the API refused control characters,
 * `]]>` and other schemes) is never served: checked here, once per change, not per request.
 */
const urlsServable = (c: Creative): boolean =>
  isSafeHttpUrl(c.landing_url) && (c.image_url === null || isSafeHttpUrl(c.image_url)) && (c.video_url === null || isSafeHttpUrl(c.video_url));

/** Builds the serving index from the mirrored configuration: only approved creatives of active campaigns, with servable URLs. */
export function buildIndex(state: ConfigState, seq: string): EngineIndex {
  const campaigns = state.campaign as Map<number, StoredCampaign>;
  const slots = new Map<string, Candidate[]>();
  const paces = new Map<number, PaceHandle>();
  const sourceLists = state.campaign_sources as Map<number, SourceList> | undefined;
  let candidateCount = 0;
  for (const creative of (state.creative as Map<number, Creative>).values()) {
    if (creative.status !== 'approved' || !urlsServable(creative)) continue;
    const campaign = campaigns.get(creative.campaign_id);
    if (!campaign || campaign.status !== 'active') continue;
    let pace = paces.get(campaign.id);
    if (!pace) paces.set(campaign.id, (pace = { rate: 1 }));
    const sources = compileSources(sourceLists?.get(campaign.id));
    const shared = new Candidate(campaign, creative, pace, sources);
    // With country adjustments a candidate ranks differently in each country's list: one object per list.
    const perGeo = shared.adjust?.countries != null;
    const slot = slotFor(creative.format, creative.image_width, creative.image_height);
    const geos = campaign.geo_include.length ? campaign.geo_include : ['*'];
    for (const geo of geos) {
      const candidate = perGeo && geo !== '*' ? new Candidate(campaign, creative, pace, sources, geo) : shared;
      const key = `${slot}|${geo}`;
      const list = slots.get(key);
      if (list) list.push(candidate);
      else slots.set(key, [candidate]);
    }
    candidateCount++;
  }
  const exchangeSlots = rankBoth(slots);
  const partners = [...(state.partner as Map<number, Partner>).values()].filter((p) => p.status === 'active').map(partnerEntry);
  const sites = state.site as Map<number, StoredSite>;
  const zones = new Map<string, ZoneEntry>();
  for (const zone of (state.zone as Map<number, StoredZone>).values()) {
    const site = sites.get(zone.site_id);
    zones.set(zone.subid, {
      zone,
      serving: zone.status === 'active' && site?.status === 'approved',
      controls: inventoryControls(zone, site),
      source: domainSource(site?.domain),
    });
  }
  const siteControls = new Map<number, InventoryControls>();
  for (const site of sites.values()) siteControls.set(site.id, inventoryControls({}, site));
  const deals = dealEntries((state.deal ?? new Map()) as Map<number, StoredDeal>, slots);
  const demandPartners = [...((state.demand_partner ?? new Map()) as Map<number, DemandPartner>).values()]
    .filter((p) => p.status === 'active')
    .sort((a, b) => a.id - b.id);
  return {
    seq,
    slots,
    exchangeSlots,
    partners,
    demandPartners,
    campaigns,
    candidateCount,
    zones,
    sites,
    creatives: state.creative as Map<number, Creative>,
    paces,
    siteControls,
    deals,
  };
}
/**
 * Each deal with its own ranked lists, built once per configuration change from its campaigns' entries
 * (so the cost follows the deals' size, not the whole index's), never per request.
 */
function dealEntries(stored: Map<number, StoredDeal>, slots: ReadonlyMap<string, readonly Candidate[]>): Map<string, DealEntry> {
  const deals = new Map<string, DealEntry>();
  if (stored.size === 0) return deals;
  const byCampaign = new Map<number, [string, Candidate][]>();
  for (const [key, list] of slots) {
    for (const c of list) {
      const mine = byCampaign.get(c.campaignId);
      if (mine) mine.push([key, c]);
      else byCampaign.set(c.campaignId, [[key, c]]);
    }
  }
  for (const d of stored.values()) {
    const own = new Map<string, Candidate[]>();
    for (const campaignId of d.campaign_ids) {
      for (const [key, c] of byCampaign.get(campaignId) ?? []) {
        const list = own.get(key);
        if (list) list.push(c);
        else own.set(key, [c]);
      }
    }
    const exchangeSlots = rankBoth(own);
    deals.set(d.id, {
      id: d.id,
      floorMicroCents: d.floor_micro_cents,
      partners: new Set(d.partner_ids),
      campaigns: new Set(d.campaign_ids),
      slots: own,
      exchangeSlots,
    });
  }
  return deals;
}

/**
 * Ranks each list in place for traffic on our zones and sites, and answers the lists in exchange order:
 * the same array where no country adjustment changes the order, a sorted copy where one does.
 */
function rankBoth(slots: Map<string, Candidate[]>): Map<string, readonly Candidate[]> {
  const exchangeSlots = new Map<string, readonly Candidate[]>();
  for (const [key, list] of slots) {
    rankCandidates(list);
    exchangeSlots.set(key, list.some((c) => c.exchangeRankMicroCents !== c.rankMicroCents) ? [...list].sort(byExchangeRank) : list);
  }
  return exchangeSlots;
}

/**
 * The ranked lists for one slot and country (the country's and the untargeted one), appended to `out`;
 * `exchange`: in the order for an impression naming no zone or site of ours.
 */
export function candidateListsFor(
  index: Pick<EngineIndex, 'slots' | 'exchangeSlots'>,
  slot: string,
  country: string | undefined,
  out: (readonly Candidate[])[],
  exchange = false,
): void {
  const slots = exchange ? index.exchangeSlots : index.slots;
  const any = slots.get(`${slot}|*`);
  if (any) out.push(any);
  const local = country ? slots.get(`${slot}|${country}`) : undefined;
  if (local) out.push(local);
}

export function partnerFor(index: EngineIndex, ip: string): PartnerEntry | undefined {
  return index.partners.find((p) => inList(p.allow, ip));
}
