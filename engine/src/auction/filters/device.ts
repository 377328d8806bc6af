import type { CandidateFilter } from '../filter.ts';

/** A campaign with device types serves only requests of one of them (an unknown device matches none). */
export const deviceFilter: CandidateFilter = {
  name: 'device_type',
  scope: 'candidate',
  reject: (c, imp) => c.devices !== null && (imp.device === undefined || !c.devices.has(imp.device)),
};
