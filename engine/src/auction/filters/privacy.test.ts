import { describe, expect, it } from 'vitest';
import { candidateFixture, impFixture } from '../../../test/fixtures/auction-fixtures.ts';
import { privacyFilter } from './privacy.ts';

describe('privacy filter', () => {
  const capped = candidateFixture({ frequency_cap: { impressions: 3, period_hours: 24 } });
  const uncapped = candidateFixture();

  it('keeps a frequency-capped campaign off traffic whose privacy signals bar user-level caps', () => {
    expect(privacyFilter.reject(capped, impFixture({ restricted: true }))).toBe(true);
  });

  it('lets uncapped campaigns serve it, and capped ones serve traffic that allows caps', () => {
    expect(privacyFilter.reject(uncapped, impFixture({ restricted: true }))).toBe(false);
    expect(privacyFilter.reject(capped, impFixture({ restricted: false }))).toBe(false);
  });
});
