import type { StoredZone } from '@adnet/schemas/publisher';
import { describe, expect, it } from 'vitest';
import { NO_CONTROLS } from '../../index/inventory-controls.ts';
import { impFixture, requestFixture } from '../../../test/fixtures/auction-fixtures.ts';
import { zoneNotServingFilter } from './zone-not-serving.ts';

const zone = { id: 7, site_id: 3, publisher_id: 2, subid: 'z7', format: 'banner' } as StoredZone;

describe('zone not serving filter', () => {
  it('rejects an impression on one of our zones that may not serve', () => {
    expect(
      zoneNotServingFilter.reject(
        impFixture({ zone: { zone, serving: false, controls: NO_CONTROLS, source: '' } }),
        requestFixture(),
      ),
    ).toBe(true);
  });

  it('accepts a serving zone and impressions that name none of ours', () => {
    expect(
      zoneNotServingFilter.reject(
        impFixture({ zone: { zone, serving: true, controls: NO_CONTROLS, source: '' } }),
        requestFixture(),
      ),
    ).toBe(false);
    expect(zoneNotServingFilter.reject(impFixture({ zone: undefined }), requestFixture())).toBe(false);
  });
});
