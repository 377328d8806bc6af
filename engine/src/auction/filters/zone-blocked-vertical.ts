import type { CandidateFilter } from '../filter.ts';

/** Our publisher blocks the campaign's vertical on this zone or site (`blocked_verticals`). */
export const zoneBlockedVerticalFilter: CandidateFilter = {
  name: 'zone_blocked_vertical',
  scope: 'candidate',
  reject: (c, imp) => imp.controls?.blockedVerticals?.has(c.vertical) === true,
};
