import { ended } from '@adnet/schemas/schedule';
import type { CandidateFilter } from '../filter.ts';

/** A campaign does not bid from its `end_at` on. */
export const endedFilter: CandidateFilter = {
  name: 'ended',
  scope: 'candidate',
  reject: (c, imp) => c.schedule !== null && ended(c.schedule, imp.ts),
};
