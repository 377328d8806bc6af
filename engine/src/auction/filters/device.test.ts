import { describe, expect, it } from 'vitest';
import { candidateFixture, impFixture } from '../../../test/fixtures/auction-fixtures.ts';
import { deviceFilter } from './device.ts';

describe('device type filter', () => {
  it('keeps a campaign with device types to requests of one of them', () => {
    const mobile = candidateFixture({ device_types: ['mobile', 'tablet'] });
    expect(deviceFilter.reject(mobile, impFixture({ device: 'desktop' }))).toBe(true);
    expect(deviceFilter.reject(mobile, impFixture({ device: undefined }))).toBe(true);
    expect(deviceFilter.reject(mobile, impFixture({ device: 'tablet' }))).toBe(false);
  });

  it('lets a campaign without device types serve an unknown device', () => {
    expect(deviceFilter.reject(candidateFixture({ device_types: [] }), impFixture({ device: undefined }))).toBe(false);
  });
});
