import type { StoredCampaign } from '@adnet/schemas/api';
import { describe, expect, it } from 'vitest';
import { candidateOf } from '../../index/candidate.ts';
import { campaignFixture, creativeFixture } from '../../../test/fixtures/index-fixtures.ts';
import { candidateFixture, impFixture } from '../../../test/fixtures/auction-fixtures.ts';
import { notStartedFilter } from './not-started.ts';

describe('not started filter', () => {
  it('keeps a campaign out until its start, then lets it bid', () => {
    const c = candidateFixture({ start_at: '2026-06-01T10:00:00.000Z' });
    expect(notStartedFilter.reject(c, impFixture({ ts: Date.parse('2026-06-01T09:59:59.999Z') }))).toBe(true);
    expect(notStartedFilter.reject(c, impFixture({ ts: Date.parse('2026-06-01T10:00:00.000Z') }))).toBe(false);
  });

  it('lets a campaign without a start bid, and one stored before schedules existed', () => {
    expect(notStartedFilter.reject(candidateFixture({ end_at: '2030-01-01T00:00:00Z' }), impFixture({ ts: 0 }))).toBe(
      false,
    );
    const { start_at: _s, end_at: _e, dayparting: _d, timezone: _t, ...old } = campaignFixture();
    const before = candidateOf(old as StoredCampaign, creativeFixture());
    expect(before.schedule).toBeNull();
    expect(notStartedFilter.reject(before, impFixture({ ts: 0 }))).toBe(false);
  });
});
