import type { StoredSite, StoredZone } from '@adnet/schemas/publisher';
import { describe, expect, it } from 'vitest';
import { buildIndex } from '../../index/engine-index.ts';
import { NO_CONTROLS } from '../../index/inventory-controls.ts';
import { impFixture, requestFixture } from '../../../test/fixtures/auction-fixtures.ts';
import { foreignOriginFilter } from './foreign-origin.ts';

const site = { id: 3, publisher_id: 2, domain: 'news.example', status: 'approved' } as StoredSite;
const zone = { id: 7, site_id: 3, publisher_id: 2, subid: 'z7', format: 'banner', status: 'active' } as StoredZone;
const index = buildIndex(
  {
    campaign: new Map(),
    creative: new Map(),
    partner: new Map(),
    site: new Map([[3, site]]),
    zone: new Map([[7, zone]]),
    deal: new Map(),
  },
  '0-0',
);
const imp = impFixture({ zone: { zone, serving: true, controls: NO_CONTROLS, source: 'news.example' } });
const from = (pageHost: string | undefined) => requestFixture({ index, pageHost });

describe('foreign origin filter', () => {
  it("serves pages on the zone's site and its subdomains", () => {
    expect(foreignOriginFilter.reject(imp, from('news.example'))).toBe(false);
    expect(foreignOriginFilter.reject(imp, from('www.news.example'))).toBe(false);
  });

  it('refuses a page elsewhere', () => {
    expect(foreignOriginFilter.reject(imp, from('ticket-farm.test'))).toBe(true);
    expect(foreignOriginFilter.reject(imp, from('news.example.ticket-farm.test'))).toBe(true);
  });

  it('judges nothing when the browser names no page, or for impressions that are not on our zones', () => {
    expect(foreignOriginFilter.reject(imp, from(undefined))).toBe(false);
    expect(foreignOriginFilter.reject(impFixture({ zone: undefined }), from('ticket-farm.test'))).toBe(false);
  });
});
