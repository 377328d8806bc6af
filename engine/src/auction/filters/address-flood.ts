import type { RequestFilter } from '../filter.ts';

/** Invalid traffic: past the per-address request limit of the zone (fraud/zone-request-rate.ts), never an ad. */
export const addressFloodFilter: RequestFilter = {
  name: 'address_flood',
  scope: 'request',
  reject: (req) => req.flood === 'address_flood',
};
