import type { CandidateFilter } from '../filter.ts';

/**
 * Our publisher blocks the creative's landing domain, or a parent of it, on this zone or site
 * (`blocked_advertiser_domains`): a set lookup per label of the landing host, precomputed on both sides.
 */
export const zoneBlockedAdvertiserFilter: CandidateFilter = {
  name: 'zone_blocked_advertiser',
  scope: 'candidate',
  reject: (c, imp) => {
    const blocked = imp.controls?.blockedDomains;
    if (!blocked) return false;
    for (const d of c.domainKeys) if (blocked.has(d)) return true;
    return false;
  },
};
