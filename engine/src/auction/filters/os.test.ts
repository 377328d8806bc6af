import { describe, expect, it } from 'vitest';
import { candidateFixture, impFixture } from '../../../test/fixtures/auction-fixtures.ts';
import { osFilter } from './os.ts';

describe('OS filter', () => {
  it('keeps a campaign with OS families to requests from one of them', () => {
    const phones = candidateFixture({ os_include: ['android', 'ios'] });
    expect(osFilter.reject(phones, impFixture({ os: 'windows' }))).toBe(true);
    expect(osFilter.reject(phones, impFixture({ os: 'other' }))).toBe(true);
    expect(osFilter.reject(phones, impFixture({ os: undefined }))).toBe(true);
    expect(osFilter.reject(phones, impFixture({ os: 'ios' }))).toBe(false);
    expect(osFilter.reject(candidateFixture({ os_include: ['other'] }), impFixture({ os: 'other' }))).toBe(false);
  });

  it('lets a campaign without OS families, or stored before they existed, serve any OS', () => {
    expect(osFilter.reject(candidateFixture({ os_include: [] }), impFixture({ os: undefined }))).toBe(false);
    const legacy = candidateFixture({ os_include: undefined as unknown as [] });
    expect(osFilter.reject(legacy, impFixture({ os: 'linux' }))).toBe(false);
  });
});
