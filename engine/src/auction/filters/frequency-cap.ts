import type { CandidateFilter } from '../filter.ts';

/**
 * A user who has had a campaign's `frequency_cap` impressions in its period gets no more of it. The
 * counts come from this engine's memory (engine/src/frequency/), so the cap holds across engines
 * within the bound in docs/delivery.md; a request that names no user cannot be capped.
 */
export const frequencyCapFilter: CandidateFilter = {
  name: 'frequency_cap',
  scope: 'candidate',
  reject: (c, imp) => c.cap !== null && imp.viewer !== undefined && imp.viewer.capped(c),
};
