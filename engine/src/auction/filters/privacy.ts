import type { CandidateFilter } from '../filter.ts';

/**
 * Traffic whose privacy signals bar user-level processing (COPPA, GDPR without consent, a CCPA
 * opt-out; openrtb/privacy.ts) has no user to count, so a frequency cap cannot hold there: a capped
 * campaign sits it out rather than serve uncapped, as its advertiser asked for the cap.
 */
export const privacyFilter: CandidateFilter = {
  name: 'privacy',
  scope: 'candidate',
  reject: (c, imp) => imp.restricted && c.cap !== null,
};
