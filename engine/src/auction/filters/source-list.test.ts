import { describe, expect, it } from 'vitest';

import { compileSources } from '../../index/source-controls.ts';
import type { ZoneEntry } from '../../index/engine-index.ts';
import { NO_CONTROLS } from '../../index/inventory-controls.ts';
import { candidateFixture, impFixture } from '../../../test/fixtures/auction-fixtures.ts';
import { sourceListFilter } from './source-list.ts';
import type { StoredZone } from '@adnet/schemas/publisher';

const zoneEntry = (subid: string): ZoneEntry => ({
  zone: { subid } as StoredZone,
  serving: true,
  controls: NO_CONTROLS,
  source: '',
});
/** An impression on our zone `subid` of site `siteId`; neither: an exchange's impression. */
const on = (subid?: string, siteId = 0) =>
  impFixture({
    zone: subid ? zoneEntry(subid) : undefined,
    inventory: { publisherId: 1, siteId, zoneId: subid ? 1 : 0, source: '' },
  });
const withList = (mode: 'include' | 'exclude', zones: string[], sites: number[]) =>
  candidateFixture({}, {}, compileSources({ mode, zones, sites }));

describe('source list filter', () => {
  it('exclude: keeps the campaign off listed zones and every zone of a listed site, nowhere else', () => {
    const c = withList('exclude', ['bad'], [7]);
    expect(sourceListFilter.reject(c, on('bad', 1))).toBe(true);
    expect(sourceListFilter.reject(c, on('ok', 7))).toBe(true);
    expect(sourceListFilter.reject(c, on('ok', 1))).toBe(false);
    // Exchange traffic names no source of ours: an exclude list does not touch it.
    expect(sourceListFilter.reject(c, on())).toBe(false);
  });

  it('include: serves only on listed zones or sites, and not on traffic naming none of ours', () => {
    const c = withList('include', ['good'], [9]);
    expect(sourceListFilter.reject(c, on('good', 1))).toBe(false);
    expect(sourceListFilter.reject(c, on('other', 9))).toBe(false);
    expect(sourceListFilter.reject(c, on('other', 1))).toBe(true);
    expect(sourceListFilter.reject(c, on())).toBe(true);
  });

  it('an empty list (either mode) or none restricts nothing', () => {
    expect(compileSources({ mode: 'include', zones: [], sites: [] })).toBeNull();
    expect(sourceListFilter.reject(candidateFixture(), on('x', 1))).toBe(false);
  });
});
