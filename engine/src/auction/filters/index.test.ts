import { NO_BID_REASONS } from '@adnet/schemas/events';
import { describe, expect, it } from 'vitest';
import { CANDIDATE_FILTERS, FILTERS, IMP_FILTERS, REQUEST_FILTERS } from './index.ts';

describe('filter registry', () => {
  it('names every filter by a no-bid reason', () => {
    for (const f of FILTERS) expect(NO_BID_REASONS).toContain(f.name);
  });

  it('splits the filters by scope and keeps their order', () => {
    expect([...REQUEST_FILTERS, ...IMP_FILTERS, ...CANDIDATE_FILTERS]).toEqual(FILTERS);
    expect(CANDIDATE_FILTERS.map((f) => f.name)).toEqual([
      'language',
      'device_type',
      'os',
      'browser',
      'connection_type',
      'blocked_advertiser',
      'blocked_category',
      'zone_blocked_vertical',
      'zone_blocked_advertiser',
      'source_list',
      'cpa_excluded',
      'native_assets',
      'video_duration',
      'not_started',
      'ended',
      'outside_schedule',
      'privacy',
      'frequency_cap',
      'audience',
      'pacing',
    ]);
  });
});
