import type { BidRequest } from '@adnet/schemas/openrtb';
import type { StoredSite, StoredZone } from '@adnet/schemas/publisher';
import { describe, expect, it } from 'vitest';
import { buildIndex } from '../index/engine-index.ts';
import { requestFixture } from '../../test/fixtures/auction-fixtures.ts';
import { openRtbContext, openRtbImp, openRtbUserId, widgetUserId, zoneImp } from './request-context.ts';

const index = buildIndex(
  { campaign: new Map(), creative: new Map(), partner: new Map(), site: new Map(), zone: new Map(), deal: new Map() },
  '0-0',
);
const IPHONE =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1';
const context = (device: BidRequest['device']) => openRtbContext({ id: 'a', imp: [{ id: '1' }], device }, index, 1, 0);

describe('OpenRTB request context', () => {
  it("refuses a bot's user agent, except on a test request (answered, never charged)", () => {
    const req = (test?: number) => ({ id: 'a', imp: [{ id: '1' }], device: { ua: 'test-user-agent' }, test });
    expect(openRtbContext(req(), index, 1, 0).bot).toBe(true);
    expect(openRtbContext(req(0), index, 1, 0).bot).toBe(true);
    expect(openRtbContext(req(1), index, 1, 0)).toMatchObject({ bot: false, test: true });
  });

  it('takes the country from device.geo.country, else from device.ip, else from device.ipv6', () => {
    expect(context({ geo: { country: 'DEU' }, ip: '8.8.8.8' }).country).toBe('de');
    expect(context({ geo: { country: 'fr' } }).country).toBe('fr');
    expect(context({ ip: '8.8.8.8' }).country).toBe('us');
    expect(context({ ip: '10.0.0.1', ipv6: '2a01:4f8::1' }).country).toBe('de');
    // A country code that names no country is no country: the address decides.
    expect(context({ geo: { country: 'ZZZ' }, ip: '193.0.0.1' }).country).toBe('nl');
    expect(context({ geo: { country: '=1+1' } }).country).toBeUndefined();
    expect(context(undefined).country).toBeUndefined();
  });

  it("takes device type and OS from the partner's fields, else from device.ua, which alone names the browser", () => {
    expect(context({ ua: IPHONE })).toMatchObject({ device: 'mobile', os: 'ios', browser: 'safari' });
    expect(context({ ua: IPHONE, devicetype: 5, os: 'Android' })).toMatchObject({
      device: 'tablet',
      os: 'android',
      browser: 'safari',
    });
    expect(context({ os: 'Tizen' })).toMatchObject({ device: undefined, os: 'other', browser: undefined });
    expect(context({})).toMatchObject({ device: undefined, os: undefined, browser: undefined });
  });

  it("reads device.sua after the partner's devicetype and os and before device.ua", () => {
    const sua = {
      browsers: [{ brand: 'Not A;Brand' }, { brand: 'Microsoft Edge' }],
      platform: { brand: 'Windows' },
      mobile: 0,
    };
    // The structured user agent beats the string: a frozen iPhone UA here, Edge on Windows there.
    expect(context({ ua: IPHONE, sua })).toMatchObject({ device: 'desktop', os: 'windows', browser: 'edge' });
    // The partner's own fields beat both.
    expect(context({ ua: IPHONE, sua, devicetype: 5, os: 'Android' })).toMatchObject({
      device: 'tablet',
      os: 'android',
      browser: 'edge',
    });
    // What sua leaves unsaid comes from the string.
    expect(context({ ua: IPHONE, sua: { browsers: [{ brand: 'Not)A;Brand' }] } })).toMatchObject({
      device: 'mobile',
      os: 'ios',
      browser: 'safari',
    });
  });

  it('names the connection type from device.connectiontype (OpenRTB 2.5 list 5.22)', () => {
    expect([0, 1, 2, 3, 4, 5, 6, 7, undefined].map((connectiontype) => context({ connectiontype }).connection)).toEqual(
      [
        undefined,
        'ethernet',
        'wifi',
        'cellular_unknown',
        'cellular_2g',
        'cellular_3g',
        'cellular_4g',
        undefined,
        undefined,
      ],
    );
  });
});

describe("our publisher's controls in an impression", () => {
  const site = {
    id: 3,
    publisher_id: 2,
    domain: 'news.example',
    status: 'approved',
    floor_cpm_micro_cents: 50_000,
    blocked_verticals: ['dating'],
  } as StoredSite;
  const zone = {
    id: 7,
    site_id: 3,
    publisher_id: 2,
    subid: 'z7',
    format: 'banner',
    banner_width: 300,
    banner_height: 250,
    status: 'active',
  } as StoredZone;
  const own = buildIndex(
    {
      campaign: new Map(),
      creative: new Map(),
      partner: new Map(),
      site: new Map([[3, site]]),
      zone: new Map([[7, { ...zone, floor_cpm_micro_cents: 200_000 }]]),
      deal: new Map([
        [
          1,
          {
            key: 1,
            id: 'D-LOW',
            floor_micro_cents: 100_000,
            partner_ids: [1],
            campaign_ids: [5],
            created_at: '',
            updated_at: '',
          },
        ],
        [
          2,
          {
            key: 2,
            id: 'D-HIGH',
            floor_micro_cents: 400_000,
            partner_ids: [1, 2],
            campaign_ids: [5],
            created_at: '',
            updated_at: '',
          },
        ],
        [
          3,
          {
            key: 3,
            id: 'D-OTHER',
            floor_micro_cents: 0,
            partner_ids: [2],
            campaign_ids: [5],
            created_at: '',
            updated_at: '',
          },
        ],
      ]),
    },
    '0-0',
  );
  const bid = (imp: BidRequest['imp'][number], siteId?: string) =>
    openRtbImp(openRtbContext({ id: 'a', imp: [imp], ...(siteId ? { site: { id: siteId } } : {}) }, own, 1, 0), imp);

  it("a zone auction clears the zone's floor; a partner's imp naming the zone, the higher of both floors", () => {
    const entry = own.zones.get('z7');
    if (!entry) throw new Error('no zone');
    expect(zoneImp(requestFixture({ index: own }), entry).floorMicroCents).toBe(200_000);
    expect(bid({ id: '1', tagid: 'z7', bidfloor: 1 }).floorMicroCents).toBe(200_000);
    expect(bid({ id: '1', tagid: 'z7', bidfloor: 3 }).floorMicroCents).toBe(300_000);
    // Rounded up to a whole micro-cent, after the binary noise of the product is gone.
    expect([1.1, 0.000015, 2.00000001].map((bidfloor) => bid({ id: '1', bidfloor }).floorMicroCents)).toEqual([
      110_000, 2, 200_001,
    ]);
    // A zone that sets no floor follows its site's; the site's controls hold where the request names only the site.
    expect(bid({ id: '1', tagid: 'nope', bidfloor: 0.1 }, '3')).toMatchObject({
      floorMicroCents: 50_000,
      controls: { blockedVerticals: new Set(['dating']) },
    });
    expect(bid({ id: '1', bidfloor: 0.1 })).toMatchObject({ floorMicroCents: 10_000, controls: undefined });
  });

  it("matches only the deals held for this partner, once each, best floor first, each floor the highest of the deal's, the request's and the zone's", () => {
    const deals = bid({
      id: '1',
      tagid: 'z7',
      pmp: {
        private_auction: 1,
        deals: [
          { id: 'D-LOW', bidfloor: 2.5 },
          { id: 'D-OTHER' },
          { id: 'D-HIGH' },
          { id: 'D-LOW' },
          { id: 'NOPE' },
          { id: 'D-HIGH', bidfloorcur: 'EUR' },
        ],
      },
    });
    expect(deals.privateAuction).toBe(true);
    expect(deals.deals.map((d) => [d.id, d.floorMicroCents])).toEqual([
      ['D-HIGH', 400_000],
      ['D-LOW', 250_000],
    ]);
    // Without a zone, the deal's own floor holds; with no pmp, nothing matches.
    expect(bid({ id: '1', pmp: { deals: [{ id: 'D-LOW' }] } }).deals.map((d) => d.floorMicroCents)).toEqual([100_000]);
    expect(bid({ id: '1' })).toMatchObject({ deals: [], privateAuction: false });
  });
});

const request = (over: Partial<BidRequest>): BidRequest => ({ id: 'r', imp: [{ id: '1' }], ...over });

describe('who the user is, for frequency caps', () => {
  it("takes OpenRTB user.id in the partner's own id space, else the device's advertising id", () => {
    expect(openRtbUserId(request({ user: { id: 'abc' }, device: { ifa: 'AAAA-1' } }), 7)).toBe('p7:abc');
    expect(openRtbUserId(request({ user: { id: 'abc' } }), 8)).toBe('p8:abc');
    expect(openRtbUserId(request({ user: {}, device: { ifa: 'AAAA-1' } }), 7)).toBe('ifa:aaaa-1');
  });

  it('has no user without an id, with an opted-out advertising id, or with something that is not one', () => {
    expect(openRtbUserId(request({}), 1)).toBeUndefined();
    expect(openRtbUserId(request({ device: { ifa: '00000000-0000-0000-0000-000000000000' } }), 1)).toBeUndefined();
    expect(openRtbUserId(request({ user: { id: '' }, device: { ifa: 42 } }), 1)).toBeUndefined();
    expect(openRtbUserId(request({ user: { id: 'x'.repeat(257) } }), 1)).toBeUndefined();
  });

  it("takes the widget's first-party id only in the shape the widget makes", () => {
    expect(widgetUserId('Q2hvb3NlIGEgcmFuZG9tIGlk')).toBe('w:Q2hvb3NlIGEgcmFuZG9tIGlk');
    for (const bad of [null, '', 'short', 'has space in it.....', 'x'.repeat(65)])
      expect(widgetUserId(bad)).toBeUndefined();
  });
});
