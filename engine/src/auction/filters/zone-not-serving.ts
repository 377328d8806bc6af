import type { ImpFilter } from '../filter.ts';

/** An impression on one of our zones (`imp.tagid`) is filled only while the zone is active on an approved site. */
export const zoneNotServingFilter: ImpFilter = {
  name: 'zone_not_serving',
  scope: 'imp',
  reject: (imp) => imp.zone !== undefined && !imp.zone.serving,
};
