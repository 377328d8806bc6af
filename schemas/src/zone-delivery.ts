/**
 * Whether a publisher's zone can serve, and why not: a zone is "active" as the publisher set it,
 * but it serves nothing until its site is approved (the engine's site_not_approved rule). Zod-free,
 * so the cabinet's bundle can use it.
 */
export type ZoneNotServing = 'paused' | 'site_not_submitted' | 'site_pending_review' | 'site_rejected';

export function zoneDelivery(
  zoneStatus: 'active' | 'paused',
  siteStatus: 'draft' | 'pending_review' | 'approved' | 'rejected' | undefined,
): { serving: boolean; reasons: ZoneNotServing[] } {
  const reasons: ZoneNotServing[] = [];
  if (zoneStatus === 'paused') reasons.push('paused');
  if (siteStatus === 'draft' || siteStatus === undefined) reasons.push('site_not_submitted');
  if (siteStatus === 'pending_review') reasons.push('site_pending_review');
  if (siteStatus === 'rejected') reasons.push('site_rejected');
  return { serving: reasons.length === 0, reasons };
}

export const ZONE_NOT_SERVING_TEXT: Record<ZoneNotServing, string> = {
  paused: 'paused',
  site_not_submitted: 'its site is not verified yet: add the verification tag and verify',
  site_pending_review: 'its site is waiting for review (usually within a working day)',
  site_rejected: 'its site was rejected',
};
