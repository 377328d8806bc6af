import { describe, expect, it } from 'vitest';
import { candidateFixture, impFixture } from '../../../test/fixtures/auction-fixtures.ts';
import { endedFilter } from './ended.ts';

describe('ended filter', () => {
  it('lets a campaign bid until its end and never from it on', () => {
    const c = candidateFixture({ start_at: '2026-06-01T00:00:00Z', end_at: '2026-06-02T00:00:00+02:00' });
    expect(endedFilter.reject(c, impFixture({ ts: Date.parse('2026-06-01T21:59:59Z') }))).toBe(false);
    expect(endedFilter.reject(c, impFixture({ ts: Date.parse('2026-06-01T22:00:00Z') }))).toBe(true);
    expect(endedFilter.reject(c, impFixture({ ts: Date.parse('2027-01-01T00:00:00Z') }))).toBe(true);
  });

  it('lets a campaign without an end bid', () => {
    expect(
      endedFilter.reject(
        candidateFixture({ start_at: '2026-06-01T00:00:00Z' }),
        impFixture({ ts: Date.parse('2099-01-01T00:00:00Z') }),
      ),
    ).toBe(false);
  });
});
