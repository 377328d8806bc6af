import { describe, expect, it } from 'vitest';
import { priceMacro, substituteMacros } from './macros.ts';

describe('OpenRTB macros', () => {
  it('fills every macro, URL-encoding what the partner chose', () => {
    const m = {
      price: priceMacro(251_000),
      auctionId: 'a-1',
      impId: '1',
      bidId: 'b&x=<y>',
      seatId: 's 1',
      currency: 'USD',
      loss: '102',
    };
    const url =
      'https://d.example/n?p=${AUCTION_PRICE}&a=${AUCTION_ID}&i=${AUCTION_IMP_ID}&b=${AUCTION_BID_ID}&s=${AUCTION_SEAT_ID}&c=${AUCTION_CURRENCY}&l=${AUCTION_LOSS}';
    expect(substituteMacros(url, m)).toBe('https://d.example/n?p=2.51&a=a-1&i=1&b=b%26x%3D%3Cy%3E&s=s%201&c=USD&l=102');
    expect(substituteMacros('${AUCTION_PRICE}${AUCTION_PRICE}${UNKNOWN}', m)).toBe('2.512.51${UNKNOWN}');
  });

  it('writes prices as exact decimals', () => {
    expect([priceMacro(0), priceMacro(1), priceMacro(100_000), priceMacro(110_000), priceMacro(123_456)]).toEqual([
      '0',
      '0.00001',
      '1',
      '1.1',
      '1.23456',
    ]);
  });
});
