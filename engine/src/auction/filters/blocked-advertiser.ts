import type { CandidateFilter } from '../filter.ts';

/** `badv` blocks a landing domain and its subdomains. */
export const blockedAdvertiserFilter: CandidateFilter = {
  name: 'blocked_advertiser',
  scope: 'candidate',
  reject: (c, imp) => imp.badv !== undefined && c.adomain !== '' && imp.badv.some((d) => d === c.adomain || c.adomain.endsWith(`.${d}`)),
};
