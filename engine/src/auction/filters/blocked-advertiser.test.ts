import { describe, expect, it } from 'vitest';
import { candidateFixture, impFixture } from '../../../test/fixtures/auction-fixtures.ts';
import { blockedAdvertiserFilter } from './blocked-advertiser.ts';

describe('blocked advertiser filter (badv)', () => {
  const shop = candidateFixture({}, { landing_url: 'https://www.shop.example.com/x' });

  it('blocks the landing domain and every parent domain named', () => {
    expect(blockedAdvertiserFilter.reject(shop, impFixture({ badv: ['example.com'] }))).toBe(true);
    expect(blockedAdvertiserFilter.reject(shop, impFixture({ badv: ['shop.example.com'] }))).toBe(true);
  });

  it('does not block another domain, a suffix that is not a parent, or no badv', () => {
    expect(blockedAdvertiserFilter.reject(shop, impFixture({ badv: ['other.com'] }))).toBe(false);
    expect(blockedAdvertiserFilter.reject(shop, impFixture({ badv: ['ample.com'] }))).toBe(false);
    expect(blockedAdvertiserFilter.reject(shop, impFixture({ badv: undefined }))).toBe(false);
  });
});
