import { describe, expect, it } from 'vitest';
import {
  adjustmentField,
  listAction,
  placementName,
  sourcesAfter,
  withAdjustmentAt,
  withZoneMultiplier,
  zoneMultiplier,
} from './placement-controls.ts';

const none = { mode: 'include' as const, zones: [], sites: [] };

describe('placement controls', () => {
  it('excludes from an empty list, and takes an excluded zone back', () => {
    expect(listAction(none, 'z1')).toEqual({ label: 'Exclude', listed: false, op: 'add' });
    const excluded = sourcesAfter(none, 'z1');
    expect(excluded).toEqual({ mode: 'exclude', zones: ['z1'], sites: [] });
    expect(listAction(excluded, 'z1')).toEqual({ label: 'Serve here again', listed: true, op: 'remove' });
    expect(sourcesAfter(excluded, 'z1')).toEqual({ mode: 'exclude', zones: [], sites: [] });
  });

  it('adds to and takes off an include list, keeping its sites', () => {
    const include = { mode: 'include' as const, zones: ['z1'], sites: [4] };
    expect(listAction(include, 'z2').label).toBe('Include');
    expect(sourcesAfter(include, 'z2')).toEqual({ mode: 'include', zones: ['z1', 'z2'], sites: [4] });
    expect(listAction(include, 'z1').label).toBe('Remove from include list');
    expect(sourcesAfter(include, 'z1')).toEqual({ mode: 'include', zones: [], sites: [4] });
  });

  it('sets one zone multiplier, keeps the other adjustments, and drops it at 1', () => {
    const adj = [
      { country: 'de', multiplier: 1.25 },
      { zone: 'z1', multiplier: 2 },
    ];
    expect(zoneMultiplier(adj, 'z1')).toBe(2);
    expect(zoneMultiplier(adj, 'z2')).toBe(1);
    expect(withZoneMultiplier(adj, 'z1', 0.5)).toEqual([
      { country: 'de', multiplier: 1.25 },
      { zone: 'z1', multiplier: 0.5 },
    ]);
    expect(withZoneMultiplier(adj, 'z1', 1)).toEqual([{ country: 'de', multiplier: 1.25 }]);
    expect(withZoneMultiplier([], 'z3', 3)).toEqual([{ zone: 'z3', multiplier: 3 }]);
  });

  it('names a placement by domain and zone name', () => {
    expect(placementName({ domain: 'news.example', name: 'Sidebar', subid: 'abc' })).toBe('news.example · Sidebar');
    expect(placementName({ domain: '', name: '', subid: 'abc' })).toBe('zone abc');
  });

  it('sets or removes one adjustment by its place, and reads which field an API error names', () => {
    const adj = [
      { country: 'de', multiplier: 1.25 },
      { site: 4, multiplier: 2 },
    ];
    expect(withAdjustmentAt(adj, 1, 3)).toEqual([
      { country: 'de', multiplier: 1.25 },
      { site: 4, multiplier: 3 },
    ]);
    expect(withAdjustmentAt(adj, 0, null)).toEqual([{ site: 4, multiplier: 2 }]);
    expect(adjustmentField('bid_adjustments.2.multiplier', 2)).toBe('multiplier');
    expect(adjustmentField('bid_adjustments.2.country', 2)).toBe('target');
    expect(adjustmentField('bid_adjustments.2', 2)).toBe('target');
    expect(adjustmentField('bid_adjustments.1.multiplier', 2)).toBeUndefined();
  });
});
