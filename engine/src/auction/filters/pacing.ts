import type { CandidateFilter } from '../filter.ts';

/**
 * Even pacing: a campaign enters each auction with its current participation rate (pacing/), so its
 * daily budget lasts the day. A rate of 1 (asap, or a campaign behind its pace) never draws.
 */
export const pacingFilter: CandidateFilter = {
  name: 'pacing',
  scope: 'candidate',
  reject: (c) => c.pace.rate < 1 && Math.random() >= c.pace.rate,
};
