// The API's enumerations, typed against the router's inputs so a renamed value fails the
// type-check; copied rather than imported because the schemas package would bring zod and the
// country tables into the browser bundle.
import type { Inputs } from './api.ts';

type CampaignIn = Inputs['adv']['campaigns']['create'];
type ZoneIn = Inputs['pub']['zones']['create'];
type SiteIn = Inputs['pub']['sites']['create'];

export const VERTICALS: readonly CampaignIn['vertical'][] = [
  'gambling',
  'betting',
  'dating',
  'nutra',
  'finance',
  'crypto',
  'ecommerce',
  'mobile_apps',
  'software',
  'games',
  'sweepstakes',
  'travel',
  'education',
  'entertainment',
  'health',
  'vpn',
  'other',
];
export const FORMATS: readonly CampaignIn['format'][] = ['native', 'banner', 'video', 'floating_video', 'push', 'in_page_push'];
export const BID_TYPES: readonly CampaignIn['bid_type'][] = ['cpm', 'cpc'];
export const PACINGS: readonly NonNullable<CampaignIn['pacing']>[] = ['even', 'asap'];
export const ROTATIONS: readonly NonNullable<CampaignIn['rotation']>[] = ['optimize', 'even', 'weighted'];
export const WEEKDAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const satisfies readonly (keyof NonNullable<CampaignIn['dayparting']>)[];
export const DEVICES: readonly NonNullable<CampaignIn['device_types']>[number][] = ['desktop', 'mobile', 'tablet'];
export const OSES: readonly NonNullable<CampaignIn['os_include']>[number][] = ['android', 'ios', 'windows', 'macos', 'linux', 'chromeos', 'other'];
export const BROWSERS: readonly NonNullable<CampaignIn['browser_include']>[number][] = ['chrome', 'safari', 'firefox', 'edge', 'samsung', 'opera', 'other'];
export const CONNECTIONS: readonly NonNullable<CampaignIn['connection_types']>[number][] = [
  'ethernet',
  'wifi',
  'cellular_unknown',
  'cellular_2g',
  'cellular_3g',
  'cellular_4g',
];
export const ORIENTATIONS: readonly Inputs['adv']['video']['generate']['orientation'][] = ['vertical', 'horizontal', 'square'];
export const ZONE_FORMATS: readonly ZoneIn['format'][] = FORMATS;
export const FV_CORNERS: readonly NonNullable<ZoneIn['fv_corner']>[] = ['br', 'bl', 'tr', 'tl'];
export const SITE_CATEGORIES: readonly SiteIn['category'][] = [
  'arts_entertainment',
  'automotive',
  'business',
  'careers',
  'education',
  'family_parenting',
  'health_fitness',
  'food_drink',
  'hobbies_interests',
  'home_garden',
  'law_government_politics',
  'news',
  'personal_finance',
  'society',
  'science',
  'pets',
  'sports',
  'style_fashion',
  'technology_computing',
  'travel',
  'real_estate',
  'shopping',
  'religion_spirituality',
  'uncategorized',
  'adult',
  'gaming',
  'streaming_video',
  'music_audio',
  'file_sharing_tools',
];
export const BANNER_SIZES = [
  '300x250',
  '336x280',
  '728x90',
  '970x90',
  '970x250',
  '300x600',
  '160x600',
  '120x600',
  '320x50',
  '300x50',
  '320x100',
  '468x60',
  '250x250',
  '200x200',
] as const;
/** Advertisers' dimensions; admins add `demand` (who bought: our campaigns or a demand partner). */
export const STATS_DIMENSIONS = ['day', 'hour', 'campaign', 'creative', 'geo', 'device', 'os', 'browser', 'site', 'zone', 'source'] as const;
export const ADMIN_STATS_DIMENSIONS = [...STATS_DIMENSIONS, 'demand'] as const;
export const POSTBACK_MACROS = ['click_id', 'payout_cents', 'status', 'geo', 'device', 'os', 'browser', 'vertical', 'campaign_id'] as const;
export const FALLBACK_TYPES: readonly NonNullable<ZoneIn['fallback']>['type'][] = ['none', 'html', 'url'];
