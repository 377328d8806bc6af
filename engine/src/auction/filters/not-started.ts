import { notStarted } from '@adnet/schemas/schedule';
import type { CandidateFilter } from '../filter.ts';

/** A campaign does not bid before its `start_at`. */
export const notStartedFilter: CandidateFilter = {
  name: 'not_started',
  scope: 'candidate',
  reject: (c, imp) => c.schedule !== null && notStarted(c.schedule, imp.ts),
};
