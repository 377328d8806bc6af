import { outsideHours } from '@adnet/schemas/schedule';
import type { CandidateFilter } from '../filter.ts';

/**
 * A campaign with dayparting bids only in its hours, in its time zone. The local hour comes from one
 * clock per zone that asks Intl once a minute (schemas/src/schedule.ts), so this is a lookup.
 */
export const outsideScheduleFilter: CandidateFilter = {
  name: 'outside_schedule',
  scope: 'candidate',
  reject: (c, imp) => c.schedule !== null && outsideHours(c.schedule, imp.ts),
};
