import { describe, expect, it } from 'vitest';
import { readBidResponse } from './read-response.ts';

const ok = (bids: unknown[], over: Record<string, unknown> = {}) =>
  JSON.stringify({ id: 'req', cur: 'USD', seatbid: [{ seat: 's', bid: bids }], ...over });
const b = (over: Record<string, unknown> = {}) => ({ id: 'b', impid: '1', price: 1.5, adm: '<b/>', ...over });
const read = (body: string) => readBidResponse(body, 3, 'req', '1', 100_000);

describe('readBidResponse: what a partner answered, checked', () => {
  it('keeps a good bid with its price in micro-cents', () => {
    expect(read(ok([b()]))).toEqual({
      bids: [{ partnerId: 3, seat: 's', bid: b(), priceMicroCents: 150_000 }],
      discards: [],
    });
    expect(read(ok([b({ price: 1 })])).bids).toHaveLength(1); // exactly the floor
  });

  it('discards bad responses whole and bad bids one by one, naming the reason', () => {
    expect(read('{"id":').discards).toEqual(['invalid_json']);
    expect(read('[]').discards).toEqual(['invalid_response']);
    expect(read(ok([b()], { id: 'other' })).discards).toEqual(['wrong_id']);
    expect(read(ok([b()], { cur: 'EUR' })).discards).toEqual(['wrong_currency']);
    const mixed = read(
      ok([
        b({ price: 0 }),
        b({ price: -1 }),
        b({ price: '1' }),
        b({ price: 0.99 }),
        b({ impid: '2' }),
        b({ adm: '' }),
        b({ adm: undefined }),
        b({ id: 'good', price: 2 }),
      ]),
    );
    expect(mixed.discards).toEqual([
      'bad_price',
      'bad_price',
      'bad_price',
      'under_floor',
      'unknown_imp',
      'no_markup',
      'no_markup',
    ]);
    expect(mixed.bids.map((x) => x.bid.id)).toEqual(['good']);
  });

  it('a response without seatbid is a pass', () => {
    expect(read(JSON.stringify({ id: 'req' }))).toEqual({ bids: [], discards: [] });
  });
});
