import { describe, expect, it } from 'vitest';
import { landingUrlOf } from './landing-url.ts';
import type { BidTicket } from './signed-token.ts';

const ticket: BidTicket = {
  bidId: 'b-1',
  campaignId: 7,
  advertiserId: 3,
  creativeId: 9,
  priceMicroCents: 125_000,
  issuedAt: 1_800_000_000,
  engine: 'e1',
  partnerId: 0,
  country: 'us',
  device: 'mobile',
  publisherId: 4,
  siteId: 5,
  zoneId: 6,
  surface: 'widget',
  ipPrefix: '',
  uaHash: '',
  test: false,
  os: 'android',
  browser: 'chrome',
  user: '',
  source: '',
  clickMicroCents: 0,
  format: 'native',
  integration: 'widget',
};
const ALL =
  'https://t.example/?c={click_id}&z={zone_id}&s={site_id}&k={campaign_id}&r={creative_id}&g={geo}&d={device}&o={os}&b={browser}&$={cost}&t={bid_type}';
const click = { clickId: 'c-1', bidType: 'cpm' as const, chargeNano: 0, os: 'android', browser: 'chrome' };

describe('the landing URL of a click', () => {
  it('fills every macro from the ticket and the click; a CPM campaign reports the clearing price', () => {
    expect(landingUrlOf(ALL, ticket, click)).toBe(
      'https://t.example/?c=c-1&z=6&s=5&k=7&r=9&g=us&d=mobile&o=android&b=chrome&$=1.25&t=cpm',
    );
  });

  it("a CPC campaign reports the click's charge, 0 when the click was not billed", () => {
    expect(
      landingUrlOf('https://t.example/?cost={cost}&t={bid_type}', ticket, {
        ...click,
        bidType: 'cpc',
        chargeNano: 300_000_000,
      }),
    ).toBe('https://t.example/?cost=0.3&t=cpc');
    expect(landingUrlOf('https://t.example/?cost={cost}', ticket, { ...click, bidType: 'cpc', chargeNano: 0 })).toBe(
      'https://t.example/?cost=0',
    );
  });

  it("leaves unknown facts empty: a partner's ad on no zone of ours, a campaign no longer known", () => {
    const partner = { ...ticket, zoneId: 0, siteId: 0, country: '', partnerId: 2 };
    expect(
      landingUrlOf('https://t.example/?z={zone_id}&s={site_id}&g={geo}&$={cost}&t={bid_type}', partner, {
        ...click,
        bidType: undefined,
      }),
    ).toBe('https://t.example/?z=&s=&g=&$=&t=');
  });

  it('refuses a stored landing URL that is no plain http(s) URL', () => {
    expect(landingUrlOf('javascript:alert(1)//{click_id}', ticket, click)).toBeUndefined();
    expect(landingUrlOf('https://t.example/\r\nx', ticket, click)).toBeUndefined();
  });
});
