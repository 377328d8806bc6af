import type { CandidateFilter } from '../filter.ts';

/** A campaign with browser families serves only requests from one of them (an unknown browser matches none). */
export const browserFilter: CandidateFilter = {
  name: 'browser',
  scope: 'candidate',
  reject: (c, imp) => c.browsers !== null && (imp.browser === undefined || !c.browsers.has(imp.browser)),
};
