import type { CandidateFilter } from '../filter.ts';

/**
 * A campaign that includes audiences serves only a viewer who is a member of one of them; one that excludes
 * audiences never serves a member of one of them. Membership is answered from this engine's memory
 * (frequency/audience-members.ts, docs/audiences.md). A request that names no viewer (no first-party id, or
 * privacy signals that bar user-level processing) is a member of nothing: included nowhere, excluded nowhere.
 * A campaign without audiences, as most are, costs one field test.
 */
export const audienceFilter: CandidateFilter = {
  name: 'audience',
  scope: 'candidate',
  reject: (c, imp) => {
    const a = c.audiences;
    if (a === null) return false;
    const viewer = imp.viewer;
    if (a.include !== null && (viewer === undefined || !viewer.inAudience(a.include))) return true;
    return a.exclude !== null && viewer !== undefined && viewer.inAudience(a.exclude);
  },
};
