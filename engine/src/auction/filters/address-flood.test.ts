import { describe, expect, it } from 'vitest';
import { requestFixture } from '../../../test/fixtures/auction-fixtures.ts';
import { addressFloodFilter } from './address-flood.ts';

describe('address flood filter', () => {
  it('rejects a request past the address limit, and no other', () => {
    expect(addressFloodFilter.reject(requestFixture({ flood: 'address_flood' }))).toBe(true);
    expect(addressFloodFilter.reject(requestFixture({ flood: 'fingerprint_flood' }))).toBe(false);
    expect(addressFloodFilter.reject(requestFixture())).toBe(false);
  });
});
