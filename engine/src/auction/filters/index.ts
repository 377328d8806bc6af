import type { CandidateFilter, Filter, ImpFilter, RequestFilter } from '../filter.ts';
import { addressFloodFilter } from './address-flood.ts';
import { blockedAdvertiserFilter } from './blocked-advertiser.ts';
import { blockedCategoryFilter } from './blocked-category.ts';
import { botTrafficFilter } from './bot-traffic.ts';
import { browserFilter } from './browser.ts';
import { connectionTypeFilter } from './connection-type.ts';
import { currencyFilter, floorCurrencyFilter } from './currency.ts';
import { deviceFilter } from './device.ts';
import { fingerprintFloodFilter } from './fingerprint-flood.ts';
import { foreignOriginFilter } from './foreign-origin.ts';
import { languageFilter } from './language.ts';
import { nativeAssetsFilter } from './native-assets.ts';
import { pacingFilter } from './pacing.ts';
import { osFilter } from './os.ts';
import { siteNotApprovedFilter } from './site-not-approved.ts';
import { zoneBlockedAdvertiserFilter } from './zone-blocked-advertiser.ts';
import { zoneBlockedVerticalFilter } from './zone-blocked-vertical.ts';
import { zoneNotServingFilter } from './zone-not-serving.ts';
// Schedule and frequency cap (docs/delivery.md).
import { endedFilter } from './ended.ts';
import { frequencyCapFilter } from './frequency-cap.ts';
// Audiences (docs/audiences.md).
import { audienceFilter } from './audience.ts';
import { notStartedFilter } from './not-started.ts';
import { outsideScheduleFilter } from './outside-schedule.ts';
// Exchange side: deals, privacy signals, video length (docs/openrtb.md).
import { privacyFilter } from './privacy.ts';
import { privateAuctionFilter } from './private-auction.ts';
import { videoDurationFilter } from './video-duration.ts';
// The advertiser's source list (docs/delivery.md, traffic sources).
import { sourceListFilter } from './source-list.ts';
// The target CPA's excluded zones (docs/delivery.md, target CPA).
import { cpaExcludedFilter } from './cpa-excluded.ts';

/**
 * Every auction filter, in the order they run within a scope: request filters
 * once per request, imp filters once per impression, candidate filters in the
 * ranked walk, cheapest first. The floor is not a filter: candidates are
 * ranked, so the walk stops at the first one below it (reason `below_floor`).
 */
export const FILTERS: readonly Filter[] = [
  currencyFilter,
  botTrafficFilter,
  addressFloodFilter,
  fingerprintFloodFilter,
  floorCurrencyFilter,
  zoneNotServingFilter,
  siteNotApprovedFilter,
  foreignOriginFilter,
  privateAuctionFilter,
  languageFilter,
  deviceFilter,
  osFilter,
  browserFilter,
  connectionTypeFilter,
  blockedAdvertiserFilter,
  blockedCategoryFilter,
  zoneBlockedVerticalFilter,
  zoneBlockedAdvertiserFilter,
  sourceListFilter,
  cpaExcludedFilter,
  nativeAssetsFilter,
  videoDurationFilter,
  notStartedFilter,
  endedFilter,
  outsideScheduleFilter,
  privacyFilter,
  // Near the end: they may look the user up.
  frequencyCapFilter,
  audienceFilter,
  // Last: it draws a random number, so only for candidates every other rule let through.
  pacingFilter,
];

export const REQUEST_FILTERS: readonly RequestFilter[] = FILTERS.filter(
  (f): f is RequestFilter => f.scope === 'request',
);
export const IMP_FILTERS: readonly ImpFilter[] = FILTERS.filter((f): f is ImpFilter => f.scope === 'imp');
export const CANDIDATE_FILTERS: readonly CandidateFilter[] = FILTERS.filter(
  (f): f is CandidateFilter => f.scope === 'candidate',
);
