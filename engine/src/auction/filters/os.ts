import type { CandidateFilter } from '../filter.ts';

/** A campaign with OS families serves only requests from one of them (an unknown OS matches none). */
export const osFilter: CandidateFilter = {
  name: 'os',
  scope: 'candidate',
  reject: (c, imp) => c.oses !== null && (imp.os === undefined || !c.oses.has(imp.os)),
};
