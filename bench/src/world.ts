import { BANNER_SIZES, CAMPAIGN_FORMATS, VERTICALS } from '@adnet/schemas/api';
import type { Creative, StoredCampaign } from '@adnet/schemas/api';
import type { Partner } from '@adnet/schemas/partners';
import { ConfigStore } from '@adnet/admin/config-store';
import { LedgerStore } from '@adnet/admin/ledger';
import { Redis } from 'ioredis';
import { BENCH_COUNTRIES, BENCH_LANGUAGES, rng } from './corpus.ts';

export interface WorldSize {
  campaigns: number;
  creativesPerCampaign: number;
  advertisers: number;
}

export interface World {
  campaigns: StoredCampaign[];
  creatives: Creative[];
  partner: Partner;
}

/** Campaigns of every format over 50 countries, with approved creatives and one partner for loopback. */
export function generateWorld(size: WorldSize): World {
  const r = rng(7);
  const campaigns: StoredCampaign[] = [];
  const creatives: Creative[] = [];
  const pick = <T>(a: readonly T[]): T => a[Math.floor(r() * a.length)] as T;
  const now = new Date().toISOString();
  let creativeId = 0;
  for (let id = 1; id <= size.campaigns; id++) {
    const format = CAMPAIGN_FORMATS[id % CAMPAIGN_FORMATS.length] as StoredCampaign['format'];
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
        status: 'approved',
        rejection_reason: null,
        tracking_token: `t${cid}`,
        created_at: now,
        moderated_at: now,
      };
      creatives.push(creative);
    }
  }
  const partner: Partner = {
    id: 1,
    name: 'bench',
    allowed_ips: ['127.0.0.0/8', '::1'],
    qps_limit: 1_000_000,
    status: 'active',
    created_at: now,
    updated_at: now,
  };
  return { campaigns, creatives, partner };
}

/** Writes the world through the admin's own storage code: the same Lua commit and change log the API uses. */
export async function seedWorld(redisUrl: string, size: WorldSize): Promise<void> {
  const world = generateWorld(size);
  const redis = new Redis(redisUrl, { enableAutoPipelining: true });
  const store = new ConfigStore(redis, 1_000_000);
  const ledger = new LedgerStore(redis);
  const jobs: Promise<unknown>[] = [];
  const flush = async () => void (await Promise.all(jobs.splice(0)));
  for (let a = 1; a <= size.advertisers; a++) jobs.push(ledger.credit(a, 100_000_000, 'bench'));
  for (const c of world.campaigns) {
    jobs.push(store.commit('campaign', c.id, 0, c));
    if (jobs.length > 5_000) await flush();
  }
  for (const c of world.creatives) {
    jobs.push(store.commit('creative', c.id, 0, c));
    if (jobs.length > 5_000) await flush();
  }
  jobs.push(store.commit('partner', 1, 0, world.partner));
  await flush();
  await redis.quit();
}
