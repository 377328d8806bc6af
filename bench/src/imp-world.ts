// The world the /imp benchmarks share (ab-imp.ts, demand-fanout.ts): 2 000 campaigns, one approved site
// with one 300x250 banner zone, and a browser's /imp request per distinct visitor.
import type { ConfigState } from '@adnet/engine/engine-index';
import type { EngineRequest } from '@adnet/engine/adapt';
import { generateWorld } from './world.ts';

export const world = generateWorld({
  campaigns: 2_000,
  creativesPerCampaign: 3,
  advertisers: 200,
  deliveryRules: true,
});
const now = new Date().toISOString();
const site = {
  id: 1,
  publisher_id: 9,
  domain: 'news.example',
  status: 'approved',
  category: 'news',
  language: 'en',
  created_at: now,
  updated_at: now,
};
const zone = {
  id: 1,
  site_id: 1,
  publisher_id: 9,
  subid: 'benchzone01',
  name: 'z',
  format: 'banner',
  banner_width: 300,
  banner_height: 250,
  status: 'active',
  created_at: now,
  updated_at: now,
};

export const impState = (extra: Partial<ConfigState> = {}): ConfigState => ({
  campaign: new Map(world.campaigns.map((c) => [c.id, c])),
  creative: new Map(world.creatives.map((c) => [c.id, c])),
  partner: new Map([[1, world.partner]]),
  site: new Map([[1, site]]),
  zone: new Map([[1, zone]]),
  deal: new Map(),
  ...extra,
});

const headers = {
  'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/125.0 Safari/537.36',
  'accept-language': 'en-US',
  'x-country': 'US',
  origin: 'https://www.news.example',
};

/** Visitor `i`'s request for the zone: its own address, fingerprint and first-party id (trees that know caps look each up). */
export const impRequest = (i: number): EngineRequest => ({
  method: 'get',
  path: '/imp',
  query: `z=benchzone01&fp=fingerprint${i}&s=e30&u=visitor-id-${String(i).padStart(10, '0')}`,
  ip: `10.${(i >> 8) & 255}.${i & 255}.1`,
  headers,
  params: [],
  body: Buffer.alloc(0),
  requestId: 'r',
  // Behind the balancer, which sets the country header.
  viaProxy: true,
});
