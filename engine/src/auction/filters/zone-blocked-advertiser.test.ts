import { describe, expect, it } from 'vitest';
import { inventoryControls } from '../../index/inventory-controls.ts';
import { candidateFixture, impFixture } from '../../../test/fixtures/auction-fixtures.ts';
import { zoneBlockedAdvertiserFilter } from './zone-blocked-advertiser.ts';

const blocking = (...domains: string[]) =>
  impFixture({ controls: inventoryControls({ blocked_advertiser_domains: domains }, undefined) });

describe('zone blocked advertiser filter', () => {
  const shop = candidateFixture({}, { landing_url: 'https://www.deals.shop.example/x?c={click_id}' });

  it('blocks the landing host and every subdomain of a blocked domain', () => {
    expect(zoneBlockedAdvertiserFilter.reject(shop, blocking('shop.example'))).toBe(true);
    expect(zoneBlockedAdvertiserFilter.reject(shop, blocking('other.example', 'deals.shop.example'))).toBe(true);
  });

  it('does not block a sibling, a mere suffix, or where nothing is blocked', () => {
    expect(zoneBlockedAdvertiserFilter.reject(shop, blocking('other.shop.example'))).toBe(false);
    expect(zoneBlockedAdvertiserFilter.reject(shop, blocking('hop.example'))).toBe(false);
    expect(zoneBlockedAdvertiserFilter.reject(shop, blocking())).toBe(false);
    expect(zoneBlockedAdvertiserFilter.reject(shop, impFixture({ controls: undefined }))).toBe(false);
  });
});
