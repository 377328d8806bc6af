import { describe, expect, it } from 'vitest';
import { campaignFixture, creativeFixture } from '../../test/fixtures/index-fixtures.ts';
import { ticketFixture } from '../../test/fixtures/ticket-fixture.ts';
import { buildIndex } from '../index/engine-index.ts';
import { clickIdOf } from '../tracking/click-id.ts';
import { isPopTicket, popLanding, popViewer } from './popunder.ts';

const SECRET = 's'.repeat(40);
const LANDING = 'https://shop.example.com/p?c={click_id}&cost={cost}&t={bid_type}&os={os}';
const indexWith = (bidType: 'cpm' | 'cpc', landing = LANDING) =>
  buildIndex(
    {
      campaign: new Map([
        [
          7,
          campaignFixture({ id: 7, advertiser_id: 3, format: 'popunder', bid_type: bidType, bid_micro_cents: 30_000 }),
        ],
      ]),
      creative: new Map([[9, creativeFixture({ id: 9, campaign_id: 7, format: 'popunder', landing_url: landing })]]),
      partner: new Map(),
      site: new Map(),
      zone: new Map(),
      deal: new Map(),
    },
    '0-0',
  );

describe("a pop's landing", () => {
  const ticket = ticketFixture({ format: 'popunder', integration: 'popunder', priceMicroCents: 2_000_000 });

  it('carries the click id its click record will have, and what a CPM pop costs per thousand', () => {
    expect(popLanding(SECRET, indexWith('cpm'), ticket)).toBe(
      `https://shop.example.com/p?c=${clickIdOf(SECRET, 'b-1')}&cost=20&t=cpm&os=android`,
    );
  });

  it("names a CPC pop's price: its click, the bid (or the adjusted bid the ticket carries)", () => {
    expect(popLanding(SECRET, indexWith('cpc'), ticket)).toContain('&cost=0.3&t=cpc');
    expect(popLanding(SECRET, indexWith('cpc'), { ...ticket, clickMicroCents: 45_000 })).toContain('&cost=0.45&t=cpc');
  });

  it('is none for a campaign or creative the index no longer has, or a landing that is not plain http(s)', () => {
    expect(popLanding(SECRET, indexWith('cpm'), { ...ticket, creativeId: 10 })).toBeUndefined();
    expect(popLanding(SECRET, indexWith('cpm'), { ...ticket, campaignId: 8 })).toBeUndefined();
    expect(popLanding(SECRET, indexWith('cpm', 'javascript:alert(1)//{click_id}'), ticket)).toBeUndefined();
  });
});

describe('pop tickets and viewers', () => {
  it("tells a pop's ticket from a display ad's by the format it was served as", () => {
    expect(isPopTicket(ticketFixture({ format: 'popunder' }))).toBe(true);
    expect(isPopTicket(ticketFixture({ format: 'direct_link' }))).toBe(true);
    for (const format of ['native', 'banner', 'in_page_push', ''] as const)
      expect(isPopTicket(ticketFixture({ format }))).toBe(false);
  });

  it("names a viewer by network and browser, as /go's cap does", () => {
    expect(popViewer('203.0.113.0', 'abcd1234')).toBe('203.0.113.0-abcd1234');
  });
});
