import { iabBlocks } from '@adnet/schemas/iab';
import type { CandidateFilter } from '../filter.ts';

/** `bcat` blocks the IAB categories of the campaign's vertical; a parent category blocks its children. */
export const blockedCategoryFilter: CandidateFilter = {
  name: 'blocked_category',
  scope: 'candidate',
  reject: (c, imp) => imp.bcat !== undefined && imp.bcat.some((b) => c.iabCats.some((cat) => iabBlocks(b, cat))),
};
