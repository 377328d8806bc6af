import { sourceAllows } from '../../index/source-controls.ts';
import type { CandidateFilter } from '../filter.ts';

/**
 * The campaign's source list keeps it off this zone or site (`sources`): listed in exclude mode, or not
 * listed in include mode. Set lookups compiled once per list (index/source-controls.ts): O(1) here.
 * An impression naming no zone or site of ours (exchange traffic) is on no listed source.
 */
export const sourceListFilter: CandidateFilter = {
  name: 'source_list',
  scope: 'candidate',
  reject: (c, imp) => c.sources !== null && !sourceAllows(c.sources, imp.zone?.zone.subid, imp.inventory.siteId),
};
