import type { StoredSite, StoredZone } from '@adnet/schemas/publisher';
import { outgoingBidRequestSchema } from '@adnet/schemas/openrtb';
import { describe, expect, it } from 'vitest';
import { buildSupplyRequest } from './build-request.ts';

const zone = { id: 5, site_id: 2, publisher_id: 9, subid: 'zone1', format: 'video' } as StoredZone;
const site = { id: 2, publisher_id: 9, domain: 'news.example', category: 'news' } as StoredSite;
const imp = {
  auctionId: 'a1',
  zone,
  site,
  floorMicroCents: 50_000,
  ua: 'ua',
  ip: '203.0.113.9',
  country: 'us',
  device: 'desktop',
  os: undefined,
  language: 'en',
  page: undefined,
  userKey: undefined,
  tmaxMs: 150,
};

describe('buildSupplyRequest: video', () => {
  it('offers partners the VAST versions up to the one the player asked for, inline and wrapper', () => {
    const protocols = (vastVersion?: '2.0' | '3.0' | '4.0') => {
      const r = buildSupplyRequest({ ...imp, vastVersion });
      expect(outgoingBidRequestSchema.safeParse(r).success).toBe(true);
      return r.imp[0]?.video?.protocols;
    };
    expect(protocols()).toEqual([2, 3, 5, 6, 7, 8]);
    expect(protocols('4.0')).toEqual([2, 3, 5, 6, 7, 8]);
    expect(protocols('3.0')).toEqual([2, 3, 5, 6]);
    expect(protocols('2.0')).toEqual([2, 5]);
  });
});
