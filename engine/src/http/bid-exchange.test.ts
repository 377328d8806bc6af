import type { EngineEvent } from '@adnet/schemas/events';
import type { BidResponse } from '@adnet/schemas/openrtb';
import type { StoredDeal } from '@adnet/schemas/deals';
import { describe, expect, it } from 'vitest';
import { bidPathContext, bidRequestOf } from '../../test/fixtures/context-fixture.ts';
import { buildIndex } from '../index/engine-index.ts';
import { campaignFixture, creativeFixture } from '../../test/fixtures/index-fixtures.ts';
import { FrequencyCapCache } from '../frequency/frequency-caps.ts';
import type { FrequencyCaps } from '../auction/ports.ts';
import { bidRoute } from './routes/bid.ts';
import { tcString } from '../../test/fixtures/tcf-fixture.ts';

// The exchange side of /openrtb/bid through the real route and auction: deals, privacy signals, video length.

const partner = (id: number, ip: string) => ({
  id,
  name: `p${id}`,
  allowed_ips: [ip],
  qps_limit: 100_000,
  status: 'active' as const,
  created_at: '',
  updated_at: '',
});
const deal = (
  key: number,
  d: Pick<StoredDeal, 'id' | 'floor_micro_cents' | 'partner_ids' | 'campaign_ids'>,
): [number, StoredDeal] => [key, { key, ...d, created_at: '', updated_at: '' }];
const index = buildIndex(
  {
    campaign: new Map([
      [1, campaignFixture({ id: 1, bid_micro_cents: 200_000 })],
      [2, campaignFixture({ id: 2, bid_micro_cents: 300_000 })],
      [3, campaignFixture({ id: 3, bid_micro_cents: 500_000, frequency_cap: { impressions: 5, period_hours: 24 } })],
      [4, campaignFixture({ id: 4, format: 'video', bid_micro_cents: 100_000 })],
    ]),
    creative: new Map([
      [1, creativeFixture({ id: 1, campaign_id: 1 })],
      [2, creativeFixture({ id: 2, campaign_id: 2 })],
      [3, creativeFixture({ id: 3, campaign_id: 3 })],
      [
        4,
        creativeFixture({
          id: 4,
          campaign_id: 4,
          format: 'video',
          image_url: null,
          image_width: null,
          image_height: null,
          video_url: 'https://cdn.example.com/v.mp4',
          duration_s: 20,
        }),
      ],
    ]),
    partner: new Map([
      [1, partner(1, '127.0.0.1')],
      [2, partner(2, '192.0.2.7')],
    ]),
    site: new Map(),
    zone: new Map(),
    deal: new Map([
      deal(1, { id: 'DEAL-A', floor_micro_cents: 150_000, partner_ids: [1], campaign_ids: [1] }),
      deal(2, { id: 'DEAL-B', floor_micro_cents: 0, partner_ids: [2], campaign_ids: [2] }),
      deal(3, { id: 'DEAL-C', floor_micro_cents: 0, partner_ids: [1], campaign_ids: [3] }),
    ]),
  },
  '1-0',
);

function bid(request: Record<string, unknown>, caps?: FrequencyCaps) {
  const events: EngineEvent[] = [];
  const ctx = bidPathContext(index, { emit: (e) => void events.push(e), ...(caps ? { caps } : {}) });
  const body = Buffer.from(JSON.stringify({ id: 'r1', tmax: 150, ...request }));
  const answer = bidRoute(ctx)(bidRequestOf(body));
  const response = answer.status === 200 ? (JSON.parse(String(answer.body)) as BidResponse) : undefined;
  const reasons = events.filter((e) => e.type === 'nobid').map((e) => (e.type === 'nobid' ? e.reason : ''));
  return { status: answer.status, bid: response?.seatbid[0]?.bid[0], reasons };
}
const banner = (extra: Record<string, unknown> = {}) => ({ id: '1', banner: { w: 300, h: 250 }, ...extra });

describe('deals', () => {
  it("a deal we hold for the partner lets its campaigns bid on it at the deal's floor, and outranks the open auction", () => {
    const { status, bid: b } = bid({ imp: [banner({ pmp: { deals: [{ id: 'DEAL-A' }] } })] });
    expect(status).toBe(200);
    expect(b?.cid).toBe('1');
    expect(b?.dealid).toBe('DEAL-A');
    expect(b?.price).toBe(1.5);
  });

  it("clears the request's own deal floor when it is higher than ours", () => {
    const { bid: b } = bid({ imp: [banner({ pmp: { deals: [{ id: 'DEAL-A', bidfloor: 1.8 }] } })] });
    expect(b?.dealid).toBe('DEAL-A');
    expect(b?.price).toBe(1.8);
  });

  it('a deal none of whose campaigns clears its floor leaves an open auction to the open bid, without dealid', () => {
    const { bid: b } = bid({ imp: [banner({ bidfloor: 0.5, pmp: { deals: [{ id: 'DEAL-A', bidfloor: 2.5 }] } })] });
    expect(b?.cid).toBe('3');
    expect(b?.dealid).toBeUndefined();
  });

  it('a private auction gets no bid without a deal we hold for this partner (unknown, or offered by another partner)', () => {
    for (const deals of [[{ id: 'DEAL-B' }], [{ id: 'NOPE' }], []]) {
      const { status, reasons } = bid({ imp: [banner({ pmp: { private_auction: 1, deals } })] });
      expect(status).toBe(204);
      expect(reasons).toEqual(['private_auction']);
    }
  });

  it('a private auction whose deal nobody clears gets no bid and no open bid', () => {
    const { status, reasons } = bid({
      imp: [banner({ pmp: { private_auction: 1, deals: [{ id: 'DEAL-A', bidfloor: 2.5 }] } })],
    });
    expect(status).toBe(204);
    expect(reasons).toEqual(['below_floor']);
  });

  it('a deal floor in another currency does not match', () => {
    const { status, reasons } = bid({
      imp: [banner({ pmp: { private_auction: 1, deals: [{ id: 'DEAL-A', bidfloorcur: 'EUR' }] } })],
    });
    expect(status).toBe(204);
    expect(reasons).toEqual(['private_auction']);
  });
});

describe('privacy signals', () => {
  // Counts every look-up of the frequency store: barred traffic must make none.
  function spyCaps() {
    const real = new FrequencyCapCache({
      store: { read: () => Promise.resolve(new Map()), count: () => Promise.resolve() },
    });
    const calls: (string | undefined)[] = [];
    const caps: FrequencyCaps = {
      viewer: (id, now) => (calls.push(id), real.viewer(id, now)),
      counted: (ad, now) => real.counted(ad, now),
    };
    return { caps, calls };
  }
  const user = { id: 'user-1' };
  const barred: [string, Record<string, unknown>][] = [
    ['COPPA', { regs: { coppa: 1 }, user }],
    ['GDPR without a consent string', { regs: { ext: { gdpr: 1 } }, user }],
    ['GDPR with an empty consent string', { regs: { ext: { gdpr: 1 } }, user: { ...user, ext: { consent: '' } } }],
    [
      'GDPR with a string that is not TCF v2',
      { regs: { ext: { gdpr: 1 } }, user: { ...user, ext: { consent: 'not-a-tc-string' } } },
    ],
    [
      'GDPR with consent to purpose 1 only',
      { regs: { ext: { gdpr: 1 } }, user: { ...user, ext: { consent: tcString([1]) } } },
    ],
    ['a CCPA opt-out', { regs: { ext: { us_privacy: '1YYN' } }, user }],
  ];
  for (const [name, signals] of barred) {
    it(`${name}: a capped campaign sits out (reason privacy when it is all there is), the frequency store is not asked`, () => {
      const { caps, calls } = spyCaps();
      const open = bid({ imp: [banner()], ...signals }, caps);
      // The capped campaign (5.00) would win; the best uncapped one (3.00) does.
      expect(open.bid?.cid).toBe('2');
      expect(calls).toEqual([]);
      // Alone in a private deal, the capped campaign says why it did not bid.
      const alone = bid(
        { imp: [banner({ pmp: { private_auction: 1, deals: [{ id: 'DEAL-C' }] } })], ...signals },
        caps,
      );
      expect(alone.status).toBe(204);
      expect(alone.reasons).toEqual(['privacy']);
      expect(calls).toEqual([]);
    });
  }

  const allowed: [string, Record<string, unknown>][] = [
    ['no signals', { user }],
    [
      'GDPR with consent to purposes 1 and 2',
      { regs: { ext: { gdpr: 1 } }, user: { ...user, ext: { consent: tcString([1, 2, 3, 4]) } } },
    ],
    ['GDPR not applying', { regs: { coppa: 0, ext: { gdpr: 0 } }, user }],
    ['a CCPA string without an opt-out', { regs: { ext: { us_privacy: '1YNN' } }, user }],
    ['a CCPA string that is not one', { regs: { ext: { us_privacy: 'garbage' } }, user }],
  ];
  for (const [name, signals] of allowed) {
    it(`${name}: the capped campaign bids, counted against the user`, () => {
      const { caps, calls } = spyCaps();
      expect(bid({ imp: [banner()], ...signals }, caps).bid?.cid).toBe('3');
      expect(calls).toEqual(['p1:user-1']);
    });
  }
});

describe('video length', () => {
  const video = (v: Record<string, unknown>) => ({ id: '1', video: { mimes: ['video/mp4'], protocols: [7], ...v } });

  it('a creative outside minduration/maxduration gets no bid (video_duration)', () => {
    for (const v of [{ minduration: 25 }, { maxduration: 15 }, { minduration: 21, maxduration: 60 }]) {
      const { status, reasons } = bid({ imp: [video(v)] });
      expect(status).toBe(204);
      expect(reasons).toEqual(['video_duration']);
    }
  });

  it("one within them bids, and its VAST says the creative's own length", () => {
    const { bid: b } = bid({ imp: [video({ minduration: 5, maxduration: 20 })] });
    expect(b?.cid).toBe('4');
    expect(b?.adm).toContain('<Duration>00:00:20</Duration>');
  });
});
