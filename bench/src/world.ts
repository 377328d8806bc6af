import { BANNER_SIZES, BROWSER_FAMILIES, CONNECTION_TYPES, OS_FAMILIES, VERTICALS } from '@adnet/schemas/api';
import type { BrowserFamily, Creative, OsFamily, StoredCampaign } from '@adnet/schemas/api';
import type { ConnectionType } from '@adnet/schemas/openrtb';
import type { Partner } from '@adnet/schemas/partners';
import { ConfigStore } from '@adnet/admin/config-store';
import { LedgerStore } from '@adnet/admin/ledger';
import { Redis } from 'ioredis';
import { BENCH_COUNTRIES, BENCH_LANGUAGES, rng } from './corpus.ts';
import type { BidAdjustment, SourceList } from '@adnet/schemas/source-lists';
import type { ConfigState } from '@adnet/engine/engine-index';

export interface WorldSize {
  campaigns: number;
  creativesPerCampaign: number;
  advertisers: number;
  /** Frequency caps on 15% of the campaigns, dayparting in four time zones on 15%, a start and an end on 5%. */
  deliveryRules?: boolean;
}

/**
 * The formats the world's campaigns cycle through: those of page, player and exchange auctions. Pop campaigns
 * (popunder, direct link) come after them (`POP_CAMPAIGNS`), so a world is the same whichever formats exist:
 * an A/B run of two trees measures their engines on the same campaigns.
 */
const WORLD_FORMATS = ['native', 'banner', 'video', 'floating_video', 'push', 'in_page_push'] as const;
/** Popunder campaigns after the others, a few hundred: what `/go` ranks (bench/src/widget-world.ts GO_ZONE). */
const POP_CAMPAIGNS = (size: WorldSize) => Math.min(500, Math.ceil(size.campaigns / 100));

const ZONES = ['UTC', 'Europe/Berlin', 'America/New_York', 'Asia/Tokyo'];
const WORKDAY = [8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22];

/** A campaign's frequency cap and schedule fields, drawn from their own sequence so the rest of the world stays as it was. */
function deliveryRules(
  r: () => number,
  on: boolean,
): Pick<StoredCampaign, 'frequency_cap' | 'start_at' | 'end_at' | 'dayparting' | 'timezone'> {
  const none = { frequency_cap: null, start_at: null, end_at: null, dayparting: null, timezone: 'UTC' };
  if (!on) return none;
  const [cap, dayparted, dated] = [r() < 0.15, r() < 0.15, r() < 0.05];
  const now = Date.now();
  const from = dated ? now + (r() < 0.7 ? -1 : 1) * 86_400_000 : 0;
  return {
    frequency_cap: cap ? { impressions: 1 + Math.floor(r() * 5), period_hours: 24 } : null,
    start_at: dated ? new Date(from).toISOString() : null,
    end_at: dated ? new Date(from + (r() < 0.8 ? 7 : 0.5) * 86_400_000).toISOString() : null,
    dayparting: dayparted ? { mon: WORKDAY, tue: WORKDAY, wed: WORKDAY, thu: WORKDAY, fri: WORKDAY } : null,
    timezone: ZONES[Math.floor(r() * ZONES.length)] as string,
  };
}

export interface World {
  campaigns: StoredCampaign[];
  creatives: Creative[];
  partner: Partner;
}

/** Campaigns of every format over 50 countries, with approved creatives and one partner for loopback. */
export function generateWorld(size: WorldSize): World {
  const r = rng(7);
  // Targeting added later draws from its own sequence, so the rest of the world stays what it was.
  const t = rng(11);
  const rules = rng(13);
  const pace = rng(19);
  const campaigns: StoredCampaign[] = [];
  const creatives: Creative[] = [];
  const pick = <T>(a: readonly T[]): T => a[Math.floor(r() * a.length)] as T;
  const now = new Date().toISOString();
  let creativeId = 0;
  for (let id = 1; id <= size.campaigns; id++) {
    const format = WORLD_FORMATS[id % WORLD_FORMATS.length] as StoredCampaign['format'];
    const cpc = r() < 0.3;
    const geoCount = r() < 0.2 ? 0 : 1 + Math.floor(r() * 5);
    const campaign: StoredCampaign = {
      id,
      advertiser_id: 1 + (id % size.advertisers),
      name: `c${id}`,
      vertical: pick(VERTICALS),
      format,
      bid_type: cpc ? 'cpc' : 'cpm',
      bid_micro_cents: cpc ? 2_000 + Math.floor(r() * 50_000) : 20_000 + Math.floor(r() * 400_000),
      status: 'active',
      daily_budget_cents: 100_000 + Math.floor(r() * 1_000_000),
      geo_include: [...new Set(Array.from({ length: geoCount }, () => pick(BENCH_COUNTRIES)))],
      languages: r() < 0.7 ? [] : [pick(BENCH_LANGUAGES)],
      device_types: r() < 0.8 ? [] : [pick(['desktop', 'mobile', 'tablet'] as const)],
      rotation: 'optimize',
      // Half paced evenly, so the pacing filter is on the measured path (its own sequence: the rest of
      // the world stays as it was). The bench's budgets are large, so even pacing rarely holds a bid back.
      pacing: pace() < 0.5 ? 'even' : 'asap',
      total_budget_cents: null,
      os_include: t() < 0.85 ? [] : [OS_FAMILIES[Math.floor(t() * OS_FAMILIES.length)] as OsFamily],
      browser_include: t() < 0.85 ? [] : [BROWSER_FAMILIES[Math.floor(t() * BROWSER_FAMILIES.length)] as BrowserFamily],
      connection_types:
        t() < 0.9 ? [] : [CONNECTION_TYPES[Math.floor(t() * CONNECTION_TYPES.length)] as ConnectionType],
      ...deliveryRules(rules, size.deliveryRules ?? false),
      created_at: now,
      updated_at: now,
    };
    campaigns.push(campaign);
    for (let k = 0; k < size.creativesPerCampaign; k++) {
      const cid = ++creativeId;
      const [w, h] = format === 'banner' ? pick(BANNER_SIZES) : [200, 200];
      const video = format === 'video' || format === 'floating_video';
      const creative: Creative = {
        id: cid,
        campaign_id: id,
        advertiser_id: campaign.advertiser_id,
        format,
        title: `Offer ${cid}`,
        body: 'Body text',
        landing_url: `https://shop${id % 40}.example.com/?c={click_id}`,
        cta_text: 'Go',
        image_url: video ? null : `https://cdn.example.com/${cid}.png`,
        image_width: video ? null : w,
        image_height: video ? null : h,
        video_url: video ? `https://cdn.example.com/${cid}.mp4` : null,
        orientation: video ? 'horizontal' : null,
        weight: 100,
        status: 'approved',
        rejection_reason: null,
        tracking_token: `t${cid}`,
        created_at: now,
        moderated_at: now,
      };
      creatives.push(creative);
    }
  }
  // Drawn from their own sequence, after every other campaign: the world before them stays as it was.
  const p = rng(23);
  for (let id = size.campaigns + 1; id <= size.campaigns + POP_CAMPAIGNS(size); id++) {
    const base = campaigns[0] as StoredCampaign;
    const campaign: StoredCampaign = {
      ...base,
      id,
      advertiser_id: 1 + (id % size.advertisers),
      name: `pop${id}`,
      format: 'popunder',
      bid_type: 'cpm',
      bid_micro_cents: 50_000 + Math.floor(p() * 300_000),
      geo_include: p() < 0.5 ? [] : [BENCH_COUNTRIES[Math.floor(p() * BENCH_COUNTRIES.length)] as string],
      languages: [],
      device_types: [],
      os_include: [],
      browser_include: [],
      connection_types: [],
      frequency_cap: null,
      start_at: null,
      end_at: null,
      dayparting: null,
      timezone: 'UTC',
    };
    campaigns.push(campaign);
    const cid = ++creativeId;
    creatives.push({
      ...(creatives[0] as Creative),
      id: cid,
      campaign_id: id,
      advertiser_id: campaign.advertiser_id,
      format: 'popunder',
      title: `Pop ${cid}`,
      body: null,
      image_url: null,
      image_width: null,
      image_height: null,
      tracking_token: `t${cid}`,
    });
  }
  const partner: Partner = {
    id: 1,
    name: 'bench',
    allowed_ips: ['127.0.0.0/8', '::1'],
    billing_notice: 'nurl',
    qps_limit: 1_000_000,
    status: 'active',
    created_at: now,
    updated_at: now,
  };
  return { campaigns, creatives, partner };
}

/** Writes the world (by default the one of `size`) through the admin's own storage code: the same Lua commit and change log the API uses. */
export async function seedWorld(redisUrl: string, size: WorldSize, world: World = generateWorld(size)): Promise<void> {
  const redis = new Redis(redisUrl, { enableAutoPipelining: true });
  const store = new ConfigStore(redis, 1_000_000);
  const ledger = new LedgerStore(redis);
  const jobs: Promise<unknown>[] = [];
  const flush = async () => void (await Promise.all(jobs.splice(0)));
  for (let a = 1; a <= size.advertisers; a++) jobs.push(ledger.credit(a, 100_000_000, 'bench'));
  for (const c of world.campaigns) {
    jobs.push(store.commit('campaign', c.id, { expectedRev: 0, value: c }));
    if (jobs.length > 5_000) await flush();
  }
  for (const c of world.creatives) {
    jobs.push(store.commit('creative', c.id, { expectedRev: 0, value: c }));
    if (jobs.length > 5_000) await flush();
  }
  jobs.push(store.commit('partner', 1, { expectedRev: 0, value: world.partner }));
  await flush();
  await redis.quit();
}

export interface SourceListsSize {
  /** How many campaigns get a list (spread over the world, every format). */
  campaigns: number;
  /** Entries per list, zones and sites together. */
  entries: number;
  /** The benchmark's own zone and site: some lists name them, as a buyer's real lists would. */
  zone: string;
  siteId: number;
  /** The share of those campaigns that also get bid adjustments (0-1). */
  adjusted: number;
}

/**
 * Source lists and bid adjustments on `size.campaigns` campaigns (docs/delivery.md): 70% zones and 30%
 * sites per list, drawn from a pool of 50 000 subids and 100 000 site ids; 80% exclude lists (a fifth of
 * them naming the bench zone), 20% include lists (half naming it). A share (`adjusted`) of those campaigns also gets 60
 * bid adjustments: 40 zones (the bench zone in a quarter), 10 sites, 10 countries, x0.5-x2. Drawn from
 * their own sequence, so the rest of the world stays as it was; the campaigns are changed in place and
 * the lists are returned as the `campaign_sources` kind, which a tree from before lists ignores.
 */
export function addSourceLists(world: World, size: SourceListsSize): Map<number, SourceList> {
  const r = rng(17);
  const pool = Array.from({ length: 50_000 }, (_, i) => `src${i.toString(36).padStart(5, '0')}`);
  const lists = new Map<number, SourceList>();
  // Campaigns drawn at random (a stride would fall on a few formats only: formats cycle by id).
  const order = world.campaigns.map((c) => ({ c, k: r() })).sort((a, b) => a.k - b.k);
  const multiplier = () => Math.round((0.5 + r() * 1.5) * 100) / 100;
  for (let i = 0; i < size.campaigns && i < order.length; i++) {
    const campaign = (order[i] as { c: StoredCampaign }).c;
    const include = r() < 0.2;
    const zones = new Set<string>();
    const sites = new Set<number>();
    if (r() < (include ? 0.5 : 0.2)) zones.add(size.zone);
    while (zones.size < size.entries * 0.7) zones.add(pool[Math.floor(r() * pool.length)] as string);
    while (zones.size + sites.size < size.entries) {
      const site = 2 + Math.floor(r() * 100_000);
      if (site !== size.siteId) sites.add(site);
    }
    lists.set(campaign.id, { mode: include ? 'include' : 'exclude', zones: [...zones], sites: [...sites] });
    if (r() >= size.adjusted) continue;
    const adjustments = new Map<string, BidAdjustment>();
    if (r() < 0.25) adjustments.set(size.zone, { zone: size.zone, multiplier: multiplier() });
    while (adjustments.size < 40) {
      const zone = pool[Math.floor(r() * pool.length)] as string;
      adjustments.set(zone, { zone, multiplier: multiplier() });
    }
    while (adjustments.size < 50) {
      const site = 2 + Math.floor(r() * 100_000);
      adjustments.set(`s${site}`, { site, multiplier: multiplier() });
    }
    while (adjustments.size < 60) {
      const country = BENCH_COUNTRIES[Math.floor(r() * BENCH_COUNTRIES.length)] as string;
      adjustments.set(`c${country}`, { country, multiplier: multiplier() });
    }
    campaign.bid_adjustments = [...adjustments.values()];
  }
  return lists;
}

/** The world as an engine's configuration (one partner; no sites, zones or deals), with its source lists when given. */
export function configStateOf(world: World, sourceLists?: Map<number, SourceList>): ConfigState {
  return {
    campaign: new Map(world.campaigns.map((c) => [c.id, c])),
    creative: new Map(world.creatives.map((c) => [c.id, c])),
    partner: new Map([[1, world.partner]]),
    site: new Map(),
    zone: new Map(),
    deal: new Map(),
    ...(sourceLists ? { campaign_sources: sourceLists } : {}),
  };
}
