import { describe, expect, it } from 'vitest';
import { clearingPrice, exchangePriceMicroCents } from './price.ts';

describe('exchangePriceMicroCents (win notice price)', () => {
  it('charges the clearing price, capped at our bid', () => {
    expect(exchangePriceMicroCents('0.08', 150_000)).toBe(8_000);
    expect(exchangePriceMicroCents('2.5', 150_000)).toBe(150_000);
    expect(exchangePriceMicroCents('1.234567', 500_000)).toBe(123_457);
  });

  it('takes our bid when the macro was not filled or no price came', () => {
    expect(exchangePriceMicroCents('${AUCTION_PRICE}', 150_000)).toBe(150_000);
    expect(exchangePriceMicroCents('', 150_000)).toBe(150_000);
    expect(exchangePriceMicroCents(null, 150_000)).toBe(150_000);
  });

  it('refuses what is not a non-negative decimal', () => {
    for (const bad of ['abc', '-1', '1e3', '0x10', ' 1', '1.', 'NaN'])
      expect(exchangePriceMicroCents(bad, 150_000), bad).toBeUndefined();
  });
});

describe('clearingPrice (second price + 1 cent)', () => {
  it('charges one cent over the runner-up, within floor and own bid', () => {
    expect(clearingPrice(150_000, 100_000, 0)).toBe(101_000);
    expect(clearingPrice(150_000, 100_000, 120_000)).toBe(120_000);
    expect(clearingPrice(150_000, 149_500, 0)).toBe(150_000);
    expect(clearingPrice(150_000, 0, 0)).toBe(1_000);
    expect(clearingPrice(150_000, 0, 50_000)).toBe(50_000);
  });
});
