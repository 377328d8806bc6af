import { describe, expect, it } from 'vitest';
import { impFixture, requestFixture } from '../../../test/fixtures/auction-fixtures.ts';
import { currencyFilter, floorCurrencyFilter } from './currency.ts';

describe('currency filters', () => {
  it('reject a request whose cur leaves USD out', () => {
    expect(currencyFilter.reject(requestFixture({ usd: false }))).toBe(true);
    expect(currencyFilter.reject(requestFixture({ usd: true }))).toBe(false);
  });

  it('reject an impression with a floor in another currency, accept USD or none', () => {
    const req = requestFixture();
    expect(floorCurrencyFilter.reject(impFixture({ floorCurrency: 'EUR' }), req)).toBe(true);
    expect(floorCurrencyFilter.reject(impFixture({ floorCurrency: 'USD' }), req)).toBe(false);
    expect(floorCurrencyFilter.reject(impFixture({ floorCurrency: undefined }), req)).toBe(false);
  });
});
