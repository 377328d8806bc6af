import { candidateOf } from '../index/candidate.ts';
import type { Candidate } from '../index/candidate.ts';
import { buildIndex } from '../index/engine-index.ts';
import { campaignFixture, creativeFixture } from '../index/fixtures.ts';
import type { ImpContext, RequestContext } from './request-context.ts';
import type { CompiledSources } from '../index/source-controls.ts';

// Builders for the auction's unit tests: complete contexts with overridable fields.

export const requestFixture = (over: Partial<RequestContext> = {}): RequestContext => ({
  index: buildIndex({ campaign: new Map(), creative: new Map(), partner: new Map(), site: new Map(), zone: new Map(), deal: new Map() }, '0-0'),
  ts: 0,
  auctionId: 'a-1',
  partnerId: 1,
  country: 'us',
  language: 'en',
  device: 'desktop',
  os: 'windows',
  browser: 'chrome',
  connection: undefined,
  usd: true,
  bcat: undefined,
  badv: undefined,
  ownSite: undefined,
  siteDomain: undefined,
  source: '',
  rejected: undefined,
  surface: 'openrtb',
  ipPrefix: '',
  uaHash: '',
  test: false,
  bot: false,
  pageHost: undefined,
  flood: undefined,
  viewer: undefined,
  privacy: undefined,
  ...over,
});

export const impFixture = (over: Partial<ImpContext> = {}): ImpContext => ({
  impId: '1',
  nativeAssets: undefined,
  slots: ['banner:300x250'],
  floorMicroCents: 0,
  floorCurrency: undefined,
  zone: undefined,
  inventory: { publisherId: 0, siteId: 0, zoneId: 0, source: '' },
  controls: undefined,
  country: 'us',
  language: 'en',
  device: 'desktop',
  os: 'windows',
  browser: 'chrome',
  connection: undefined,
  bcat: undefined,
  badv: undefined,
  ts: 0,
  viewer: undefined,
  restricted: false,
  deals: [],
  privateAuction: false,
  minDuration: undefined,
  maxDuration: undefined,
  ...over,
});

let nextId = 1;
/** A candidate of its own campaign (unique ids), with campaign and creative fields overridable. */
export function candidateFixture(
  campaign: Parameters<typeof campaignFixture>[0] = {},
  creative: Parameters<typeof creativeFixture>[0] = {},
  sources: CompiledSources | null = null,
): Candidate {
  const id = nextId++;
  return candidateOf(campaignFixture({ id, ...campaign }), creativeFixture({ id, campaign_id: id, ...creative }), { rate: 1 }, sources);
}
