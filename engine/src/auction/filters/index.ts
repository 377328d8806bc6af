import type { CandidateFilter, Filter, ImpFilter, RequestFilter } from '../filter.ts';
import { blockedAdvertiserFilter } from './blocked-advertiser.ts';
import { blockedCategoryFilter } from './blocked-category.ts';
import { botTrafficFilter } from './bot-traffic.ts';
import { currencyFilter, floorCurrencyFilter } from './currency.ts';
import { deviceFilter } from './device.ts';
import { languageFilter } from './language.ts';
import { siteNotApprovedFilter } from './site-not-approved.ts';
import { zoneNotServingFilter } from './zone-not-serving.ts';

/**
 * Every auction filter, in the order they run within a scope: request filters
 * once per request, imp filters once per impression, candidate filters in the
 * ranked walk, cheapest first. The floor is not a filter: candidates are
 * ranked, so the walk stops at the first one below it (reason `below_floor`).
 */
export const FILTERS: readonly Filter[] = [
  currencyFilter,
  botTrafficFilter,
  floorCurrencyFilter,
  zoneNotServingFilter,
  siteNotApprovedFilter,
  languageFilter,
  deviceFilter,
  blockedAdvertiserFilter,
  blockedCategoryFilter,
];

export const REQUEST_FILTERS: readonly RequestFilter[] = FILTERS.filter((f): f is RequestFilter => f.scope === 'request');
export const IMP_FILTERS: readonly ImpFilter[] = FILTERS.filter((f): f is ImpFilter => f.scope === 'imp');
export const CANDIDATE_FILTERS: readonly CandidateFilter[] = FILTERS.filter((f): f is CandidateFilter => f.scope === 'candidate');
