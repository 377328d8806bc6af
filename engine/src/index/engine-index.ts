import type { Creative, StoredCampaign } from '@adnet/schemas/api';
import type { ConfigKind } from '@adnet/schemas/changes';
import type { DemandPartner } from '@adnet/schemas/demand';
import type { Partner } from '@adnet/schemas/partners';
import type { StoredSite, StoredZone } from '@adnet/schemas/publisher';
import { isSafeHttpUrl } from '@adnet/schemas/url';
import type { BlockList } from 'node:net';
import { addressList, inList } from '../net/address-list.ts';
import { inventoryControls } from './inventory-controls.ts';
import type { InventoryControls } from './inventory-controls.ts';
import { rankCandidates } from './rank.ts';
import { slotFor } from './slots.ts';
import { Candidate } from './candidate.ts';
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
}

export interface ZoneEntry {
  zone: StoredZone;
  /** Active zone on an approved site. */
  serving: boolean;
  /** The zone's controls with its site's defaults applied. */
  controls: InventoryControls;
}

// Demand partners came after the other kinds: a state built without them (tests, benchmarks) has none.
export type ConfigState = Record<Exclude<ConfigKind, 'demand_partner'>, Map<number, unknown>> & { demand_partner?: Map<number, unknown> };

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
  let candidateCount = 0;
  for (const creative of (state.creative as Map<number, Creative>).values()) {
    if (creative.status !== 'approved' || !urlsServable(creative)) continue;
    const campaign = campaigns.get(creative.campaign_id);
    if (!campaign || campaign.status !== 'active') continue;
    let pace = paces.get(campaign.id);
    if (!pace) paces.set(campaign.id, (pace = { rate: 1 }));
    const candidate = new Candidate(campaign, creative, pace);
    const slot = slotFor(creative.format, creative.image_width, creative.image_height);
    const geos = campaign.geo_include.length ? campaign.geo_include : ['*'];
    for (const geo of geos) {
      const key = `${slot}|${geo}`;
      const list = slots.get(key);
      if (list) list.push(candidate);
      else slots.set(key, [candidate]);
    }
    candidateCount++;
  }
  for (const list of slots.values()) rankCandidates(list);
  const partners = [...(state.partner as Map<number, Partner>).values()].filter((p) => p.status === 'active').map(partnerEntry);
  const sites = state.site as Map<number, StoredSite>;
  const zones = new Map<string, ZoneEntry>();
  for (const zone of (state.zone as Map<number, StoredZone>).values()) {
    const site = sites.get(zone.site_id);
    zones.set(zone.subid, { zone, serving: zone.status === 'active' && site?.status === 'approved', controls: inventoryControls(zone, site) });
  }
  const siteControls = new Map<number, InventoryControls>();
  for (const site of sites.values()) siteControls.set(site.id, inventoryControls({}, site));
  const demandPartners = [...((state.demand_partner ?? new Map()) as Map<number, DemandPartner>).values()]
    .filter((p) => p.status === 'active')
    .sort((a, b) => a.id - b.id);
  return {
    seq,
    slots,
    partners,
    demandPartners,
    campaigns,
    candidateCount,
    zones,
    sites,
    creatives: state.creative as Map<number, Creative>,
    paces,
    siteControls,
  };
}

/** The ranked lists for one slot and country (the country's and the untargeted one), appended to `out`. */
export function candidateListsFor(index: EngineIndex, slot: string, country: string | undefined, out: (readonly Candidate[])[]): void {
  const any = index.slots.get(`${slot}|*`);
  if (any) out.push(any);
  const local = country ? index.slots.get(`${slot}|${country}`) : undefined;
  if (local) out.push(local);
}

export function partnerFor(index: EngineIndex, ip: string): PartnerEntry | undefined {
  return index.partners.find((p) => inList(p.allow, ip));
}
