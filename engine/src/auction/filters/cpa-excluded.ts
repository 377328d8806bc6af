import type { CandidateFilter } from '../filter.ts';

/**
 * The campaign's target CPA excluded this zone: it spent its test budget without a conversion (docs/delivery.md,
 * "Target CPA"). A set compiled once per decision (index/source-controls.ts, compileZoneBids); a campaign without
 * a target has none, and costs one null check.
 */
export const cpaExcludedFilter: CandidateFilter = {
  name: 'cpa_excluded',
  scope: 'candidate',
  reject: (c, imp) => {
    const excluded = c.cpaExcluded;
    if (excluded === null) return false;
    const subid = imp.zone?.zone.subid;
    return subid !== undefined && excluded.has(subid);
  },
};
