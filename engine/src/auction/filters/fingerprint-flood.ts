import type { RequestFilter } from '../filter.ts';

/** Invalid traffic: past the per-fingerprint request limit of the zone (fraud/zone-request-rate.ts), never an ad. */
export const fingerprintFloodFilter: RequestFilter = {
  name: 'fingerprint_flood',
  scope: 'request',
  reject: (req) => req.flood === 'fingerprint_flood',
};
