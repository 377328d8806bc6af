import { describe, expect, it } from 'vitest';
import { impFixture, requestFixture } from '../../../test/fixtures/auction-fixtures.ts';
import { privateAuctionFilter } from './private-auction.ts';

const deal = {
  id: 'd-1',
  floorMicroCents: 100_000,
  entry: {
    id: 'd-1',
    floorMicroCents: 100_000,
    partners: new Set([1]),
    campaigns: new Set([1]),
    slots: new Map(),
    exchangeSlots: new Map(),
  },
};

describe('private auction filter', () => {
  it('rejects a private auction without a deal we hold', () => {
    expect(privateAuctionFilter.reject(impFixture({ privateAuction: true, deals: [] }), requestFixture())).toBe(true);
  });

  it('lets a private auction with a matched deal through, and every open auction', () => {
    expect(privateAuctionFilter.reject(impFixture({ privateAuction: true, deals: [deal] }), requestFixture())).toBe(
      false,
    );
    expect(privateAuctionFilter.reject(impFixture({ privateAuction: false, deals: [] }), requestFixture())).toBe(false);
  });
});
