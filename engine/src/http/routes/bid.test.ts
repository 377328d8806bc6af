import { engineEventSchema } from '@adnet/schemas/events';
import type { EngineEvent } from '@adnet/schemas/events';
import { describe, expect, it } from 'vitest';
import { bidPathContext, bidRequestOf } from '../../../test/fixtures/context-fixture.ts';
import { buildIndex } from '../../index/engine-index.ts';
import { campaignFixture, creativeFixture } from '../../../test/fixtures/index-fixtures.ts';
import { bidRoute } from './bid.ts';

const index = buildIndex(
  {
    campaign: new Map([[1, campaignFixture({ id: 1 })]]),
    creative: new Map([[1, creativeFixture({ id: 1 })]]),
    partner: new Map([
      [
        1,
        {
          id: 1,
          name: 'x',
          allowed_ips: ['127.0.0.1'],
          qps_limit: 1_000,
          status: 'active',
          created_at: '',
          updated_at: '',
        },
      ],
    ]),
    site: new Map(),
    zone: new Map(),
    deal: new Map(),
  },
  '1-0',
);
function route(
  clock: () => number,
  request: object = { id: 'r1', imp: [{ id: '1', banner: { w: 300, h: 250 } }], tmax: 100 },
) {
  const events: EngineEvent[] = [];
  const given: number[] = [];
  const ctx = bidPathContext(index, {
    budget: {
      tryTake: () => true,
      canTake: () => true,
      giveBack: (_c, price) => void given.push(price),
      recordSpend: () => undefined,
    },
    emit: (e) => void events.push(e),
    now: clock,
  });
  const body = Buffer.from(JSON.stringify(request));
  const answer = bidRoute(ctx)(bidRequestOf(body));
  return { answer, events, given };
}

describe('bid route deadline', () => {
  it('answers in time with the bid and records it', () => {
    const { answer, events } = route(() => 0);
    expect(answer.status).toBe(200);
    expect(events.map((e) => e.type)).toEqual(['bid']);
  });

  it('past the deadline answers 204, gives the budget back and records no bid that was never sent', () => {
    let t = 0;
    const { answer, events, given } = route(() => (t += 101));
    expect(answer.status).toBe(204);
    expect(given).toHaveLength(1);
    expect(events.map((e) => (e.type === 'nobid' ? e.reason : e.type))).toEqual(['deadline']);
  });
});

describe('bid route events', () => {
  const request = (extra: object) => ({
    id: 'auction-7',
    imp: [
      { id: 'a', banner: { w: 300, h: 250 } },
      { id: 'b', banner: { w: 999, h: 9 } },
    ],
    site: { domain: 'news.example.com' },
    tmax: 100,
    ...extra,
  });
  const shared = { auction_id: 'auction-7', partner_id: 1, site_domain: 'news.example.com', source: 'example.com' };

  it('a bid and a no-bid carry the request, the impression, the ad and the price, each valid on the stream', () => {
    const { answer, events } = route(() => 0, request({}));
    expect(answer.status).toBe(200);
    for (const e of events) expect(engineEventSchema.safeParse(e).success).toBe(true);
    const [nobid, bid] = [events.find((e) => e.type === 'nobid'), events.find((e) => e.type === 'bid')];
    expect(nobid).toMatchObject({ ...shared, imp_id: 'b', reason: expect.any(String) as string });
    expect(bid).toMatchObject({
      ...shared,
      imp_id: 'a',
      campaign_id: 1,
      creative_id: 1,
      advertiser_id: campaignFixture({ id: 1 }).advertiser_id,
    });
    expect(bid?.type === 'bid' && bid.price_micro_cents).toBeGreaterThan(0);
    expect(new Set(events.map((e) => e.id)).size).toBe(2);
  });

  it("a test request's bid is kept apart as uncounted, with the same facts", () => {
    const { events } = route(() => 0, request({ test: 1 }));
    const test = events.find((e) => e.type === 'uncounted');
    expect(test).toMatchObject({ ...shared, of: 'bid', reason: 'test', campaign_id: 1, creative_id: 1 });
    expect(engineEventSchema.safeParse(test).success).toBe(true);
  });

  it('past the deadline the one no-bid names the request, not an impression', () => {
    let t = 0;
    const { events } = route(() => (t += 101), request({}));
    const late = events.filter((e) => e.type === 'nobid' && e.reason === 'deadline');
    expect(late).toHaveLength(1);
    expect(late[0]).toMatchObject(shared);
    expect(late[0]).not.toHaveProperty('imp_id');
  });
});

describe('bid route OpenRTB version', () => {
  const send = (version: string | undefined) => {
    const ctx = bidPathContext(index, {
      budget: { tryTake: () => true, canTake: () => true, giveBack: () => undefined, recordSpend: () => undefined },
      emit: () => undefined,
      now: () => 0,
    });
    const req = bidRequestOf(Buffer.from(JSON.stringify({ id: 'r1', imp: [{ id: '1', banner: { w: 300, h: 250 } }] })));
    req.headers = version === undefined ? {} : { 'x-openrtb-version': version };
    return bidRoute(ctx)(req);
  };

  it('answers 2.5 and 2.6 in the version received, a missing or empty header as 2.5, with mtype on the bid', () => {
    for (const [sent, echoed] of [
      ['2.5', '2.5'],
      ['2.6', '2.6'],
      ['2.6.1', '2.6'],
      ['', '2.5'],
      [undefined, '2.5'],
    ] as const) {
      const answer = send(sent);
      expect(answer.status).toBe(200);
      expect(answer.headers?.['x-openrtb-version']).toBe(echoed);
      expect(JSON.parse(String(answer.body))).toMatchObject({ seatbid: [{ bid: [{ mtype: 1 }] }] });
    }
  });

  it('refuses any other version with a 400 naming the header', () => {
    for (const v of ['3.0', '2.4', '2', 'abc']) {
      const answer = send(v);
      expect(answer.status).toBe(400);
      expect(JSON.parse(String(answer.body))).toMatchObject({
        code: 'bad_request',
        error: expect.stringContaining('x-openrtb-version'),
      });
    }
  });
});
