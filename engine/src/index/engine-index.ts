import { audienceIndex, NO_AUDIENCES } from './audience-index.ts';
import type { AudienceIndex } from './audience-index.ts';
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
import { INTERSTITIAL_SLOT, slotFor } from './slots.ts';
import { domainSource } from '../inventory/source.ts';
import { Candidate, campaignPart } from './candidate.ts';
import type { SourceList } from '@adnet/schemas/source-lists';
import type { ZoneBids } from '@adnet/schemas/target-cpa';
import type { CampaignPart, PaceHandle } from './candidate.ts';

export interface PartnerEntry {
  partner: Partner;
  allow: BlockList;
}

/**
 * What the hot path reads, replaced by a new object when configuration changes (index-update.ts builds the
 * next one from this one and the change, sharing every list the change did not touch). Its lists, zones and
 * deals are never changed once published. `campaigns`, `creatives`, `sites` and `paces` are the mirror's own
 * maps, changed in place in the same synchronous step that publishes the next index: copying a 300 000-entry
 * map per change cost tens of milliseconds, and a reader holding an older index across an await sees the
 * latest configuration there, as `ctx.index()` would give it.
 */
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
  /** Audiences the engine records members of (index/audience-index.ts). */
  readonly audiences: AudienceIndex;
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
export type ConfigState = Record<
  Exclude<ConfigKind, 'campaign_sources' | 'demand_partner' | 'campaign_zone_bids' | 'audience'>,
  Map<number, unknown>
> & {
  campaign_sources?: Map<number, unknown>;
  campaign_zone_bids?: Map<number, unknown>;
  demand_partner?: Map<number, unknown>;
  audience?: Map<number, unknown>;
};

function partnerEntry(partner: Partner): PartnerEntry {
  return { partner, allow: addressList(partner.allowed_ips) };
}

/**
 * A creative whose stored URLs are not plain http(s) (one kept before the API refused control characters,
 * `]]>` and other schemes) is never served: checked here, once per change, not per request.
 */
export const urlsServable = (c: Creative): boolean =>
  isSafeHttpUrl(c.landing_url) &&
  (c.image_url === null || isSafeHttpUrl(c.image_url)) &&
  (c.video_url === null || isSafeHttpUrl(c.video_url));

/**
 * What the incremental update (index-update.ts) keeps beside an index: each serving campaign's candidates and
 * the lists they are in, and the reverse maps that say which campaigns, zones and deals a change touches.
 * Held against the one index it describes (`owner`); the maps are advanced in place by the next update.
 */
export interface IndexBook {
  owner: EngineIndex;
  readonly campaigns: Map<number, CampaignPlacement>;
  /** Every creative id in the configuration by its campaign, served or not (`addCreativeOf`, `removeCreativeOf`). */
  readonly creativesOf: Map<number, readonly number[]>;
  /** Zone ids (the configuration's) by site id. */
  readonly zonesOf: Map<number, Set<number>>;
  /** Deal ids (the configuration's) by the campaigns they name. */
  readonly dealsOf: Map<number, Set<number>>;
}

/** A serving campaign in the index: `cands[i]` is in the list `keys[i]`; `count` servable creatives. */
export interface CampaignPlacement {
  readonly pace: PaceHandle;
  readonly keys: readonly string[];
  readonly cands: readonly Candidate[];
  readonly count: number;
}

const books = new WeakMap<EngineIndex, IndexBook>();

/** The bookkeeping of `index`, when it is the latest of its line (an older index's was advanced past it). */
export function bookOf(index: EngineIndex): IndexBook | undefined {
  const book = books.get(index);
  return book && book.owner === index ? book : undefined;
}

export function setBook(index: EngineIndex, book: IndexBook): void {
  book.owner = index;
  books.set(index, book);
}

const addTo = <K, V>(map: Map<K, Set<V>>, key: K, value: V): void => {
  const set = map.get(key);
  if (set) set.add(value);
  else map.set(key, new Set([value]));
};
export { addTo as addToSetMap };

// A campaign's creative ids as an exact-size array, replaced on a change: a `Set` of three ids was about twice
// the bytes, 100 000 of them at 100 000 campaigns (bench/results/ab-history.md, memory at 100 000 campaigns).
export function addCreativeOf(map: Map<number, readonly number[]>, campaignId: number, id: number): void {
  const ids = map.get(campaignId);
  if (ids === undefined) map.set(campaignId, [id]);
  else if (!ids.includes(id)) map.set(campaignId, ids.concat(id));
}

export function removeCreativeOf(map: Map<number, readonly number[]>, campaignId: number, id: number): void {
  const ids = map.get(campaignId);
  const at = ids ? ids.indexOf(id) : -1;
  if (ids && at >= 0) map.set(campaignId, ids.slice(0, at).concat(ids.slice(at + 1)));
}

/** One string per list key, shared by every campaign's bookkeeping (a few thousand keys, hundreds of thousands of uses). */
const listKeys = new Map<string, string>();
function listKey(slot: string, geo: string): string {
  const key = `${slot}|${geo}`;
  const known = listKeys.get(key);
  if (known !== undefined) return known;
  if (listKeys.size >= 100_000) listKeys.clear();
  listKeys.set(key, key);
  return key;
}

/**
 * One campaign's candidates and the lists they go in; undefined when it serves nothing (not active, or no
 * approved creative with servable URLs). `pace` is kept when the campaign already had one: its rate carries over.
 * `prev`: the campaign's part in the index before, reused while made from the same objects (campaignPart in candidate.ts).
 */
export function placeCampaign(
  campaign: StoredCampaign,
  creatives: ReadonlyMap<number, Creative>,
  {
    creativeIds,
    sourceList,
    zoneBids,
    pace,
    prev,
  }: {
    /** The campaign's creatives' ids. */
    creativeIds: Iterable<number> | undefined;
    sourceList: SourceList | undefined;
    /** Its target CPA's zone bids and exclusions (config kind `campaign_zone_bids`). */
    zoneBids?: ZoneBids | undefined;
    pace?: PaceHandle;
    prev?: CampaignPart;
  },
): CampaignPlacement | undefined {
  if (campaign.status !== 'active' || creativeIds === undefined) return undefined;
  const keys: string[] = [];
  const cands: Candidate[] = [];
  let count = 0;
  let part: CampaignPart | undefined;
  const geos = campaign.geo_include.length ? campaign.geo_include : ['*'];
  for (const id of creativeIds) {
    const creative = creatives.get(id);
    if (!creative || creative.status !== 'approved' || !urlsServable(creative)) continue;
    part ??= campaignPart(campaign, pace ?? { rate: 1 }, { sourceList, zoneBids }, prev);
    const shared = new Candidate(part, creative);
    // With country adjustments a candidate ranks differently in each country's list: one object per list.
    const perGeo = part.adjust?.countries != null;
    const slot = slotFor(creative.format, creative.image_width, creative.image_height);
    // A banner or native campaign that opted in also fills interstitial zones, with the same candidate.
    const alsoInterstitial = campaign.interstitial === true && slot !== INTERSTITIAL_SLOT;
    for (const geo of geos) {
      const cand = perGeo && geo !== '*' ? new Candidate(part, creative, geo) : shared;
      keys.push(listKey(slot, geo));
      cands.push(cand);
      if (alsoInterstitial) {
        keys.push(listKey(INTERSTITIAL_SLOT, geo));
        cands.push(cand);
      }
    }
    count++;
  }
  // Exact-size copies: arrays grown by push keep room for 17 entries, ~100 bytes spare twice per campaign.
  return count === 0 || part === undefined
    ? undefined
    : { pace: part.pace, keys: keys.slice(), cands: cands.slice(), count };
}

/** A serving campaign's candidates in `index` (every list's), from its bookkeeping; none for an index no longer the latest. */
export function campaignCandidates(index: EngineIndex, campaignId: number): readonly Candidate[] {
  return bookOf(index)?.campaigns.get(campaignId)?.cands ?? [];
}

/**
 * Builds the serving index from the mirrored configuration: only approved creatives of active campaigns, with
 * servable URLs. `prev`, the index it replaces (a snapshot's rebuild): its campaigns' compiled parts are reused
 * where made from the same objects.
 */
export function buildIndex(state: ConfigState, seq: string, prev?: EngineIndex): EngineIndex {
  const before = prev && bookOf(prev);
  const campaigns = state.campaign as Map<number, StoredCampaign>;
  const creatives = state.creative as Map<number, Creative>;
  const slots = new Map<string, Candidate[]>();
  const paces = new Map<number, PaceHandle>();
  const sourceLists = state.campaign_sources as Map<number, SourceList> | undefined;
  const zoneBids = state.campaign_zone_bids as Map<number, ZoneBids> | undefined;
  const book: Omit<IndexBook, 'owner'> = {
    campaigns: new Map(),
    creativesOf: new Map(),
    zonesOf: new Map(),
    dealsOf: new Map(),
  };
  const grown = new Map<number, number[]>();
  for (const creative of creatives.values()) {
    const ids = grown.get(creative.campaign_id);
    if (ids) ids.push(creative.id);
    else grown.set(creative.campaign_id, [creative.id]);
  }
  for (const [campaignId, ids] of grown) book.creativesOf.set(campaignId, ids.slice());
  let candidateCount = 0;
  for (const campaign of campaigns.values()) {
    const prevPart = before?.campaigns.get(campaign.id)?.cands[0]?.part;
    const placed = placeCampaign(campaign, creatives, {
      creativeIds: book.creativesOf.get(campaign.id),
      sourceList: sourceLists?.get(campaign.id),
      zoneBids: zoneBids?.get(campaign.id),
      prev: prevPart,
    });
    if (!placed) continue;
    book.campaigns.set(campaign.id, placed);
    paces.set(campaign.id, placed.pace);
    for (let i = 0; i < placed.keys.length; i++) {
      const key = placed.keys[i] as string;
      const list = slots.get(key);
      if (list) list.push(placed.cands[i] as Candidate);
      else slots.set(key, [placed.cands[i] as Candidate]);
    }
    candidateCount += placed.count;
  }
  const exchangeSlots = rankBoth(slots);
  const sites = state.site as Map<number, StoredSite>;
  const zones = state.zone as Map<number, StoredZone>;
  for (const zone of zones.values()) addTo(book.zonesOf, zone.site_id, zone.id);
  const storedDeals = (state.deal ?? new Map()) as Map<number, StoredDeal>;
  for (const [id, d] of storedDeals) for (const c of d.campaign_ids) addTo(book.dealsOf, c, id);
  // Every zone, site, deal and partner is new to an index built from nothing.
  const everything: KindChanges = {
    zones: new Set(zones.keys()),
    goneSubids: [],
    sites: new Set(sites.keys()),
    deals: new Set(storedDeals.keys()),
    goneDealIds: new Set(),
    partners: true,
    demandPartners: true,
    audiences: true,
  };
  const index = assembleIndex(NOTHING, state, {
    book,
    seq,
    lists: { slots, exchangeSlots, candidateCount, paces },
    changed: everything,
  });
  setBook(index, { ...book, owner: index });
  return index;
}

/** What a batch of changes touched besides the campaigns' lists; everything, for an index built from nothing. */
export interface KindChanges {
  readonly zones: ReadonlySet<number>;
  /** Zones gone or changed (by subid and id): taken off unless another zone holds the subid now. */
  readonly goneSubids: readonly (readonly [string, number])[];
  readonly sites: ReadonlySet<number>;
  readonly deals: ReadonlySet<number>;
  readonly goneDealIds: ReadonlySet<string>;
  readonly partners: boolean;
  readonly demandPartners: boolean;
  readonly audiences: boolean;
}

type KindParts = Pick<EngineIndex, 'zones' | 'siteControls' | 'deals' | 'partners' | 'demandPartners' | 'audiences'>;
const NOTHING: KindParts = {
  zones: new Map(),
  siteControls: new Map(),
  deals: new Map(),
  partners: [],
  demandPartners: [],
  audiences: NO_AUDIENCES,
};

/**
 * The one place an index is put together, for a build (buildIndex) and a change (updateIndex) alike: the
 * campaigns' lists as the caller made them, and zones, sites, deals and partners redone from `before` where
 * `changed` names them; every part it does not name is the same object as before.
 */
export function assembleIndex(
  before: KindParts,
  state: ConfigState,
  {
    book,
    seq,
    lists,
    changed,
  }: {
    book: Pick<IndexBook, 'campaigns' | 'zonesOf'>;
    seq: string;
    lists: Pick<EngineIndex, 'slots' | 'exchangeSlots' | 'candidateCount' | 'paces'>;
    changed: KindChanges;
  },
): EngineIndex {
  const sites = state.site as Map<number, StoredSite>;
  let { deals, zones, siteControls } = before;
  if (changed.deals.size > 0) {
    const next = new Map(deals);
    for (const id of changed.goneDealIds) next.delete(id);
    const stored = (state.deal ?? new Map()) as Map<number, StoredDeal>;
    for (const id of changed.deals) {
      const d = stored.get(id);
      if (d) next.set(d.id, dealEntry(d, book.campaigns));
    }
    deals = next;
  }
  if (changed.zones.size > 0 || changed.sites.size > 0) {
    const next = new Map(zones);
    for (const [subid, id] of changed.goneSubids) if (next.get(subid)?.zone.id === id) next.delete(subid);
    const redo = new Set(changed.zones);
    for (const site of changed.sites) for (const z of book.zonesOf.get(site) ?? []) redo.add(z);
    const stored = state.zone as Map<number, StoredZone>;
    for (const id of redo) {
      const z = stored.get(id);
      if (z) next.set(z.subid, zoneEntry(z, sites.get(z.site_id)));
    }
    zones = next;
  }
  if (changed.sites.size > 0) {
    const next = new Map(siteControls);
    for (const id of changed.sites) {
      const site = sites.get(id);
      if (site) next.set(id, inventoryControls({}, site));
      else next.delete(id);
      if (book.zonesOf.get(id)?.size === 0) book.zonesOf.delete(id);
    }
    siteControls = next;
  }
  return {
    seq,
    slots: lists.slots,
    exchangeSlots: lists.exchangeSlots,
    partners: changed.partners
      ? partnerEntries(state.partner as Map<number, Partner>, before.partners)
      : before.partners,
    demandPartners: changed.demandPartners
      ? demandPartnerList(state.demand_partner as Map<number, DemandPartner> | undefined)
      : before.demandPartners,
    campaigns: state.campaign as Map<number, StoredCampaign>,
    candidateCount: lists.candidateCount,
    zones,
    sites,
    creatives: state.creative as Map<number, Creative>,
    paces: lists.paces,
    siteControls,
    deals,
    audiences: changed.audiences ? audienceIndex(state.audience) : before.audiences,
  };
}

export function zoneEntry(zone: StoredZone, site: StoredSite | undefined): ZoneEntry {
  return {
    zone,
    serving: zone.status === 'active' && site?.status === 'approved',
    controls: inventoryControls(zone, site),
    source: domainSource(site?.domain),
  };
}

/**
 * Active partners by id; an entry whose partner object is unchanged is kept (its address list compiled once).
 * By id, not by the mirror's order: that order depends on how the configuration arrived (a snapshot's hash
 * order, a log replay, a resync's difference), and where allow-lists overlap the first match names the partner.
 */
export function partnerEntries(
  stored: Map<number, Partner>,
  before: readonly PartnerEntry[] | undefined,
): PartnerEntry[] {
  const kept = new Map(before?.map((e) => [e.partner, e]));
  const out: PartnerEntry[] = [];
  for (const p of stored.values()) if (p.status === 'active') out.push(kept.get(p) ?? partnerEntry(p));
  return out.sort((a, b) => a.partner.id - b.partner.id);
}

export function demandPartnerList(stored: Map<number, DemandPartner> | undefined): DemandPartner[] {
  return [...(stored ?? new Map<number, DemandPartner>()).values()]
    .filter((p) => p.status === 'active')
    .sort((a, b) => a.id - b.id);
}

/**
 * A deal with its own ranked lists, built from its campaigns' placements: the cost follows the deal's size,
 * not the whole index's, and it is paid once per change that touches the deal or one of its campaigns.
 */
export function dealEntry(d: StoredDeal, placements: ReadonlyMap<number, CampaignPlacement>): DealEntry {
  const own = new Map<string, Candidate[]>();
  for (const campaignId of d.campaign_ids) {
    const placed = placements.get(campaignId);
    if (!placed) continue;
    for (let i = 0; i < placed.keys.length; i++) {
      const key = placed.keys[i] as string;
      const list = own.get(key);
      if (list) list.push(placed.cands[i] as Candidate);
      else own.set(key, [placed.cands[i] as Candidate]);
    }
  }
  const exchangeSlots = rankBoth(own);
  return {
    id: d.id,
    floorMicroCents: d.floor_micro_cents,
    partners: new Set(d.partner_ids),
    campaigns: new Set(d.campaign_ids),
    slots: own,
    exchangeSlots,
  };
}

/**
 * Ranks each list in place for traffic on our zones and sites, and answers the lists in exchange order:
 * the same array where no country adjustment changes the order, a sorted copy where one does; `slots`
 * itself where no list's order changes (index-update.ts then copies one map per change, not two).
 */
function rankBoth(slots: Map<string, Candidate[]>): ReadonlyMap<string, readonly Candidate[]> {
  const exchangeSlots = new Map<string, readonly Candidate[]>();
  let same = true;
  for (const [key, list] of slots) {
    rankCandidates(list);
    const exchange = exchangeOrder(list, undefined);
    same &&= exchange === list;
    exchangeSlots.set(key, exchange);
  }
  return same ? slots : exchangeSlots;
}

/** `list` itself when exchange order is rank order; else a copy sorted by exchange rank. */
export function exchangeOrder(
  list: readonly Candidate[],
  sorted: (() => readonly Candidate[]) | undefined,
): readonly Candidate[] {
  for (const c of list)
    if (c.exchangeRankMicroCents !== c.rankMicroCents) return sorted ? sorted() : [...list].sort(byExchangeRank);
  return list;
}

/**
 * The ranked lists for one slot and country (the country's and the untargeted one), appended to `out`;
 * `exchange`: in the order for an impression naming no zone or site of ours.
 */
// eslint-disable-next-line @typescript-eslint/max-params -- hot path: looked up for every impression; appends into the caller's array to allocate nothing
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
