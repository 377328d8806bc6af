import { describe, expect, it } from 'vitest';
import { requestFixture } from '../../../test/fixtures/auction-fixtures.ts';
import { fingerprintFloodFilter } from './fingerprint-flood.ts';

describe('fingerprint flood filter', () => {
  it('rejects a request past the fingerprint limit, and no other', () => {
    expect(fingerprintFloodFilter.reject(requestFixture({ flood: 'fingerprint_flood' }))).toBe(true);
    expect(fingerprintFloodFilter.reject(requestFixture({ flood: 'address_flood' }))).toBe(false);
    expect(fingerprintFloodFilter.reject(requestFixture())).toBe(false);
  });
});
