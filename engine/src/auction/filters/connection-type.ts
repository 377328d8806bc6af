import type { CandidateFilter } from '../filter.ts';

/**
 * A campaign with connection types serves only requests on one of them. Only OpenRTB requests say
 * theirs (`device.connectiontype`): a request that does not, our own zones' included, matches none.
 */
export const connectionTypeFilter: CandidateFilter = {
  name: 'connection_type',
  scope: 'candidate',
  reject: (c, imp) => c.connections !== null && (imp.connection === undefined || !c.connections.has(imp.connection)),
};
