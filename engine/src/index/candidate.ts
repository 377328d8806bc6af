import type { CampaignFormat, Creative, StoredCampaign } from '@adnet/schemas/api';
import { CTR_PRIOR } from '@adnet/schemas/formats';
import { VERTICAL_IAB } from '@adnet/schemas/iab';
import { compileSchedule } from '@adnet/schemas/schedule';
import type { CompiledSchedule } from '@adnet/schemas/schedule';
import type { ROTATIONS } from '@adnet/schemas/api';
import { adjustedMicroCents } from '@adnet/schemas/source-lists';
import type { SourceList } from '@adnet/schemas/source-lists';
import type { ZoneBids } from '@adnet/schemas/target-cpa';
import { compileAdjustments, compileSources, compileZoneBids } from './source-controls.ts';
import type { CompiledAdjustments, CompiledSources } from './source-controls.ts';

/** What a campaign's part is compiled from beside the campaign: its source list and its target CPA's zone bids. */
export interface CampaignLists {
  sourceList: SourceList | undefined;
  zoneBids?: ZoneBids | undefined;
}

/** How a campaign's creatives share its traffic (rotation/ carries it out; the index sits below it). */
type Rotation = (typeof ROTATIONS)[number];

/** A campaign's current participation rate: one mutable object its creatives share, so a tick updates them all. */
export interface PaceHandle {
  rate: number;
}

// The CTR priors live beside the formats, shared with the admin's traffic estimate.
export { CTR_PRIOR };

/**
 * What every candidate of one campaign shares (23 of a candidate's 35 fields), compiled once per campaign
 * object, pace handle and source list: at 300 000 creatives, a copy of these fields in each candidate was
 * about 51 MiB of the engine's live heap (bench/results/ab-history.md, "Step: RSS at 100 000 campaigns").
 * All fields set in the constructor (stable shape).
 */
export class CampaignPart {
  /** What it was compiled from: the next placement of the campaign reuses it, or its compiled lists, while they are the same objects. */
  readonly campaign: StoredCampaign;
  readonly sourceList: SourceList | undefined;
  readonly zoneBids: ZoneBids | undefined;
  readonly campaignId: number;
  readonly advertiserId: number;
  readonly format: CampaignFormat;
  readonly bidType: 'cpm' | 'cpc';
  readonly bidMicroCents: number;
  readonly dailyBudgetCents: number;
  /** Lifetime cap in cents, -1 for none. */
  readonly totalBudgetCents: number;
  readonly languages: ReadonlySet<string> | null;
  readonly devices: ReadonlySet<string> | null;
  readonly oses: ReadonlySet<string> | null;
  readonly browsers: ReadonlySet<string> | null;
  readonly connections: ReadonlySet<string> | null;
  readonly iabCats: readonly string[];
  readonly vertical: string;
  readonly ctr: number;
  /** Expected value per thousand impressions, in micro-cents, before any bid adjustment. */
  readonly ecpmMicroCents: number;
  /** The campaign's bid adjustments, compiled (index/source-controls.ts); null for none. */
  readonly adjust: CompiledAdjustments | null;
  /** The campaign's source list, compiled; null when it restricts nothing. */
  readonly sources: CompiledSources | null;
  /** Zones (subids) the campaign's target CPA excluded; null for none (every campaign without a target). */
  readonly cpaExcluded: ReadonlySet<string> | null;
  /** How the campaign splits its traffic between its creatives. */
  readonly rotation: Rotation;
  /** The campaign's share of eligible auctions under even pacing, shared by its creatives (pacing/pacer.ts); 1 for asap. */
  readonly pace: PaceHandle;
  /** At most `impressions` ads per user in `periodHours` (frequency/); null when uncapped. */
  readonly cap: { readonly impressions: number; readonly periodHours: number } | null;
  /** Start, end and dayparting, compiled once (schemas/src/schedule.ts); null when the campaign always serves. */
  readonly schedule: CompiledSchedule | null;
  /** The audiences the campaign includes and excludes (auction/filters/audience.ts); null when it names none, as most do. */
  readonly audiences: CampaignAudiences | null;

  constructor(
    campaign: StoredCampaign,
    pace: PaceHandle,
    lists: CampaignLists,
    compiled: {
      sources: CompiledSources | null;
      adjust: CompiledAdjustments | null;
      cpaExcluded?: ReadonlySet<string> | null;
    },
  ) {
    const { sources, adjust } = compiled;
    this.campaign = campaign;
    this.sourceList = lists.sourceList;
    this.zoneBids = lists.zoneBids;
    this.cpaExcluded = compiled.cpaExcluded ?? null;
    this.campaignId = campaign.id;
    this.advertiserId = campaign.advertiser_id;
    this.format = campaign.format;
    this.bidType = campaign.bid_type;
    this.bidMicroCents = campaign.bid_micro_cents;
    this.dailyBudgetCents = campaign.daily_budget_cents;
    this.totalBudgetCents = campaign.total_budget_cents ?? -1;
    this.languages = setOf(campaign.languages);
    // Campaigns stored before a kind of targeting existed have no list for it: no restriction.
    this.devices = setOf(campaign.device_types);
    this.oses = setOf(campaign.os_include);
    this.browsers = setOf(campaign.browser_include);
    this.connections = setOf(campaign.connection_types);
    this.iabCats = VERTICAL_IAB[campaign.vertical];
    this.vertical = campaign.vertical;
    this.ctr = CTR_PRIOR[campaign.format];
    this.ecpmMicroCents =
      campaign.bid_type === 'cpm' ? campaign.bid_micro_cents : Math.floor(campaign.bid_micro_cents * this.ctr * 1000);
    this.adjust = adjust;
    this.sources = sources;
    // Stored before rotation existed: optimize.
    this.rotation = campaign.rotation ?? 'optimize';
    this.pace = pace;
    // Campaigns stored before caps and schedules have neither.
    this.cap = campaign.frequency_cap
      ? { impressions: campaign.frequency_cap.impressions, periodHours: campaign.frequency_cap.period_hours }
      : null;
    this.schedule = compileSchedule(campaign);
    this.audiences = campaignAudiences(campaign);
  }
}

/** A campaign's audience lists; an empty list is null, so the filter tests one field for the campaigns without. */
export interface CampaignAudiences {
  readonly include: readonly number[] | null;
  readonly exclude: readonly number[] | null;
}

function campaignAudiences(c: StoredCampaign): CampaignAudiences | null {
  // Stored before audiences existed: none.
  const include = c.audiences_include?.length ? c.audiences_include : null;
  const exclude = c.audiences_exclude?.length ? c.audiences_exclude : null;
  return include || exclude ? { include, exclude } : null;
}

/**
 * One creative of a live campaign, flattened for the hot path: its own fields, and its campaign's through
 * `part` (read through getters, so readers see one flat object; optimized code inlines them to one more load).
 * All fields set in the constructor (stable shape).
 */
export class Candidate {
  readonly part: CampaignPart;
  readonly creativeId: number;
  readonly adomain: string;
  /** The landing domain and each parent domain of it (`a.shop.example`, `shop.example`, `example`): what a publisher's block list is matched against. */
  readonly domainKeys: readonly string[];
  /**
   * What the index ranks by: the eCPM times the largest multiplier the campaign's bid adjustments can give
   * (the eCPM itself without adjustments), so no impression can score the candidate above it and the
   * ranked walk can re-score adjusted candidates as it meets them (auction/run-auction.ts).
   */
  readonly rankMicroCents: number;
  /**
   * The same bound for an impression that names no zone or site of ours (exchange traffic), where only
   * country multipliers apply; in a country's list (`geo`) that is the exact score, in the untargeted
   * list the largest country multiplier's. The index keeps a second order by it (engine-index.ts).
   */
  readonly exchangeRankMicroCents: number;
  /** The exchange rank is the exact score (no country multiplier, or a country's list): the walk need not hold it back. */
  readonly exchangeExact: boolean;
  /** This creative's weight (0-100) for `weighted` rotation. */
  readonly weight: number;
  readonly creative: Creative;

  /** `geo`: the country of the index list the candidate goes in ('*': the untargeted one); it matters only with country adjustments. */
  constructor(part: CampaignPart, creative: Creative, geo = '*') {
    this.part = part;
    this.creativeId = creative.id;
    const landing = landingOf(creative.landing_url);
    this.adomain = landing.adomain;
    this.domainKeys = landing.domainKeys;
    const a = part.adjust;
    // In a country's list the country multiplier is known: only the zone and site ones remain a bound.
    const countryMilli = a === null ? 1000 : geo === '*' ? a.maxCountryMilli : (a.countries?.get(geo) ?? 1000);
    this.rankMicroCents = a
      ? adjustedMicroCents(part.ecpmMicroCents, Math.max(a.maxPlaceMilli, countryMilli, 1000))
      : part.ecpmMicroCents;
    this.exchangeRankMicroCents = a
      ? adjustedMicroCents(part.ecpmMicroCents, geo === '*' ? Math.max(countryMilli, 1000) : countryMilli)
      : part.ecpmMicroCents;
    this.exchangeExact = a === null || a.countries === null || geo !== '*';
    // Stored before rotation existed: full weight.
    this.weight = creative.weight ?? 100;
    this.creative = creative;
  }

  get campaignId(): number {
    return this.part.campaignId;
  }
  get advertiserId(): number {
    return this.part.advertiserId;
  }
  get format(): CampaignFormat {
    return this.part.format;
  }
  get bidType(): 'cpm' | 'cpc' {
    return this.part.bidType;
  }
  get bidMicroCents(): number {
    return this.part.bidMicroCents;
  }
  get dailyBudgetCents(): number {
    return this.part.dailyBudgetCents;
  }
  get totalBudgetCents(): number {
    return this.part.totalBudgetCents;
  }
  get languages(): ReadonlySet<string> | null {
    return this.part.languages;
  }
  get devices(): ReadonlySet<string> | null {
    return this.part.devices;
  }
  get oses(): ReadonlySet<string> | null {
    return this.part.oses;
  }
  get browsers(): ReadonlySet<string> | null {
    return this.part.browsers;
  }
  get connections(): ReadonlySet<string> | null {
    return this.part.connections;
  }
  get iabCats(): readonly string[] {
    return this.part.iabCats;
  }
  get vertical(): string {
    return this.part.vertical;
  }
  get ctr(): number {
    return this.part.ctr;
  }
  get ecpmMicroCents(): number {
    return this.part.ecpmMicroCents;
  }
  get adjust(): CompiledAdjustments | null {
    return this.part.adjust;
  }
  get sources(): CompiledSources | null {
    return this.part.sources;
  }
  get cpaExcluded(): ReadonlySet<string> | null {
    return this.part.cpaExcluded;
  }
  get rotation(): Rotation {
    return this.part.rotation;
  }
  get pace(): PaceHandle {
    return this.part.pace;
  }
  get cap(): CampaignPart['cap'] {
    return this.part.cap;
  }
  get schedule(): CompiledSchedule | null {
    return this.part.schedule;
  }
  get audiences(): CampaignAudiences | null {
    return this.part.audiences;
  }
}

/**
 * The part for `campaign`'s candidates: `prev` (the campaign's part in the index before) when made from the
 * same campaign object, pace handle and source list, else a new one that keeps `prev`'s compiled source list
 * and bid adjustments while they are the same objects (a list of 10 000 entries is not compiled again per
 * change). The previous part is passed in, not looked up in a WeakMap by campaign object: a WeakMap entry per
 * campaign is an ephemeron that every full collection must resolve, and clear in its atomic pause (1.5-1.7 ms
 * of it at 100 000 campaigns; bench/results/ab-history.md, "Step: the full collections' pause").
 */
export function campaignPart(
  campaign: StoredCampaign,
  pace: PaceHandle,
  lists: CampaignLists,
  prev: CampaignPart | undefined,
): CampaignPart {
  const { sourceList } = lists;
  // Zone bids apply only while the campaign has its target: one turned off stops them before the admin deletes them.
  const zoneBids = campaign.target_cpa_cents ? lists.zoneBids : undefined;
  if (
    prev &&
    prev.campaign === campaign &&
    prev.pace === pace &&
    prev.sourceList === sourceList &&
    prev.zoneBids === zoneBids
  )
    return prev;
  const sources = prev && prev.sourceList === sourceList ? prev.sources : compileSources(sourceList);
  const cpa = compileZoneBids(zoneBids, campaign.bid_micro_cents);
  const adjust =
    prev &&
    prev.campaign.bid_adjustments === campaign.bid_adjustments &&
    prev.zoneBids === zoneBids &&
    (zoneBids === undefined || prev.campaign.bid_micro_cents === campaign.bid_micro_cents)
      ? prev.adjust
      : compileAdjustments(campaign.bid_adjustments, cpa?.milli ?? null);
  return new CampaignPart(campaign, pace, { sourceList, zoneBids }, { sources, adjust, cpaExcluded: cpa?.excluded });
}

/** A candidate with a part of its own (tests and fixtures; the index makes one part per campaign, placeCampaign). */
export function candidateOf(
  campaign: StoredCampaign,
  creative: Creative,
  pace: PaceHandle = { rate: 1 },
  sources: CompiledSources | null = null,
): Candidate {
  return new Candidate(
    new CampaignPart(
      campaign,
      pace,
      { sourceList: undefined },
      { sources, adjust: compileAdjustments(campaign.bid_adjustments) },
    ),
    creative,
  );
}

/**
 * Targeting sets by their values, shared between campaigns: campaigns repeat a few combinations of languages,
 * devices, systems, browsers and connections, and a set of their own each was ~13 MiB at 100 000 campaigns.
 * Emptied when it grows past a bound.
 */
const targetSets = new Map<string, ReadonlySet<string>>();
const TARGET_SETS_MAX = 50_000;

function setOf(values: readonly string[] | undefined): ReadonlySet<string> | null {
  if (!values?.length) return null;
  const key = values.join('\u0000');
  let set = targetSets.get(key);
  if (set === undefined) {
    if (targetSets.size >= TARGET_SETS_MAX) targetSets.clear();
    set = new Set(values);
    targetSets.set(key, set);
  }
  return set;
}

/** Landing hosts and their parent domains, by landing URL: creatives mostly share a few. Emptied when it grows past a bound. */
const landings = new Map<string, { adomain: string; domainKeys: readonly string[] }>();
const LANDINGS_MAX = 100_000;

function landingOf(url: string): { adomain: string; domainKeys: readonly string[] } {
  let l = landings.get(url);
  if (l) return l;
  const adomain = hostOf(url);
  l = { adomain, domainKeys: adomain ? adomain.split('.').map((_, i, labels) => labels.slice(i).join('.')) : [] };
  if (landings.size >= LANDINGS_MAX) landings.clear();
  landings.set(url, l);
  return l;
}

function hostOf(url: string): string {
  try {
    return new URL(url.replaceAll('{click_id}', 'x')).hostname.replace(/^www\./, '');
  } catch {
    return '';
  }
}
