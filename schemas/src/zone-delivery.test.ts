import { describe, expect, it } from 'vitest';
import { zoneDelivery } from './zone-delivery.ts';

describe('zone delivery', () => {
  it('serves only when active on an approved site', () => {
    expect(zoneDelivery('active', 'approved')).toEqual({ serving: true, reasons: [] });
    expect(zoneDelivery('active', 'pending_review')).toEqual({ serving: false, reasons: ['site_pending_review'] });
    expect(zoneDelivery('paused', 'rejected')).toEqual({ serving: false, reasons: ['paused', 'site_rejected'] });
    expect(zoneDelivery('active', undefined).serving).toBe(false);
  });
});
