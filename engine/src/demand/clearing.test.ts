import { describe, expect, it } from 'vitest';
import { decide } from './clearing.ts';
import type { PartnerBid } from './read-response.ts';

const bid = (partnerId: number, usd: number): PartnerBid => ({
  partnerId,
  seat: 's',
  bid: { id: `b${partnerId}`, impid: '1', price: usd, adm: '<b/>' },
  priceMicroCents: Math.round(usd * 100_000),
});
const own = (ecpmUsd: number, priceUsd: number) => ({
  ecpmMicroCents: ecpmUsd * 100_000,
  priceMicroCents: priceUsd * 100_000,
});

describe('decide (second price + 1 cent between our campaigns and partners)', () => {
  it('a partner over our campaign pays one cent over the runner-up, whoever that is', () => {
    const d = decide(own(2, 1), [bid(1, 3), bid(2, 2.5)], 50_000);
    expect(d).toMatchObject({ winner: 'partner', bid: { partnerId: 1 }, priceMicroCents: 251_000 });
    if (d.winner === 'partner') expect(d.losers.map((l) => l.partnerId)).toEqual([2]);
    expect(decide(own(2.8, 1), [bid(1, 3), bid(2, 2.5)], 0)).toMatchObject({
      winner: 'partner',
      priceMicroCents: 281_000,
    });
  });

  it('never under the floor, never over the winning bid', () => {
    expect(decide(undefined, [bid(1, 3)], 120_000)).toMatchObject({ winner: 'partner', priceMicroCents: 120_000 });
    expect(decide(undefined, [bid(1, 3), bid(2, 3)], 0)).toMatchObject({
      winner: 'partner',
      bid: { partnerId: 1 },
      priceMicroCents: 300_000,
    });
    expect(decide(undefined, [bid(1, 0.004)], 0)).toMatchObject({ winner: 'partner', priceMicroCents: 400 });
  });

  it('our campaign keeps a tie and its own price, raised to one cent over the best partner when that is higher', () => {
    expect(decide(own(3, 1), [bid(1, 3)], 0)).toEqual({ winner: 'own', priceMicroCents: 300_000 });
    expect(decide(own(3, 1), [bid(1, 2)], 0)).toEqual({ winner: 'own', priceMicroCents: 201_000 });
    expect(decide(own(3, 2.5), [bid(1, 2)], 0)).toEqual({ winner: 'own', priceMicroCents: 250_000 });
    expect(decide(own(3, 1), [], 0)).toEqual({ winner: 'own', priceMicroCents: 100_000 });
    expect(decide(undefined, [], 0)).toEqual({ winner: 'none' });
  });
});
