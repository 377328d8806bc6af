import type { Creative, StoredCampaign } from '@adnet/schemas/api';
import type { ConfigKind } from '@adnet/schemas/changes';
import type { Partner } from '@adnet/schemas/partners';
import type { StoredSite, StoredZone } from '@adnet/schemas/publisher';
import type { BlockList } from 'node:net';
import { addressList, inList } from '../net/address-list.ts';
import { rankCandidates } from './rank.ts';
import { slotFor } from './slots.ts';
import { Candidate } from './candidate.ts';

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
  readonly campaigns: ReadonlyMap<number, StoredCampaign>;
  readonly candidateCount: number;
  /** Our zones by subid (OpenRTB `imp.tagid`), with whether they may serve now. */
  readonly zones: ReadonlyMap<string, ZoneEntry>;
  readonly sites: ReadonlyMap<number, StoredSite>;
  /** Every creative, served or not: a click on yesterday's ad still needs its landing page. */
  readonly creatives: ReadonlyMap<number, Creative>;
}

export interface ZoneEntry {
  zone: StoredZone;
  /** Active zone on an approved site. */
  serving: boolean;
}

export type ConfigState = Record<ConfigKind, Map<number, unknown>>;

function partnerEntry(partner: Partner): PartnerEntry {
  return { partner, allow: addressList(partner.allowed_ips) };
}

/** Builds the serving index from the mirrored configuration: only approved creatives of active campaigns. */
export function buildIndex(state: ConfigState, seq: string): EngineIndex {
  const campaigns = state.campaign as Map<number, StoredCampaign>;
  const slots = new Map<string, Candidate[]>();
  let candidateCount = 0;
  for (const creative of (state.creative as Map<number, Creative>).values()) {
    if (creative.status !== 'approved') continue;
    const campaign = campaigns.get(creative.campaign_id);
    if (!campaign || campaign.status !== 'active') continue;
    const candidate = new Candidate(campaign, creative);
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
    zones.set(zone.subid, { zone, serving: zone.status === 'active' && sites.get(zone.site_id)?.status === 'approved' });
  }
  return { seq, slots, partners, campaigns, candidateCount, zones, sites, creatives: state.creative as Map<number, Creative> };
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
