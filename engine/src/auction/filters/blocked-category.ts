import { iabBlocks } from '@adnet/schemas/iab';
import type { Candidate } from '../../index/candidate.ts';
import type { CandidateFilter } from '../filter.ts';

// Plain loops: this runs per candidate walked, and the `some` callbacks were two closures made per call.
function blocks(bcat: readonly string[], c: Candidate): boolean {
  for (let i = 0; i < bcat.length; i++) {
    const b = bcat[i] as string;
    for (let j = 0; j < c.iabCats.length; j++) if (iabBlocks(b, c.iabCats[j] as string)) return true;
  }
  return false;
}

/** `bcat` blocks the IAB categories of the campaign's vertical; a parent category blocks its children. */
export const blockedCategoryFilter: CandidateFilter = {
  name: 'blocked_category',
  scope: 'candidate',
  reject: (c, imp) => imp.bcat !== undefined && blocks(imp.bcat, c),
};
