import { describe, expect, it } from 'vitest';
import { FrequencyCapCache } from '../../frequency/frequency-caps.ts';
import { candidateFixture, impFixture } from '../../../test/fixtures/auction-fixtures.ts';
import { frequencyCapFilter } from './frequency-cap.ts';

// The filter over the real per-engine counts, with a store that knows nothing yet.
const caps = () =>
  new FrequencyCapCache({ store: { read: () => new Promise(() => undefined), count: () => Promise.resolve() } });

describe('frequency cap filter', () => {
  it('keeps a capped campaign from a user this engine has just served it, and not from another user', () => {
    const cache = caps();
    const c = candidateFixture({ frequency_cap: { impressions: 2, period_hours: 24 } });
    const alice = impFixture({ ts: 1_000, viewer: cache.viewer('w:alice-first-party-id', 1_000) });
    expect(frequencyCapFilter.reject(c, alice)).toBe(false);
    alice.viewer?.served(c);
    // One ad not yet seen counted: no second one from this engine until it is.
    expect(
      frequencyCapFilter.reject(c, impFixture({ ts: 2_000, viewer: cache.viewer('w:alice-first-party-id', 2_000) })),
    ).toBe(true);
    expect(
      frequencyCapFilter.reject(c, impFixture({ ts: 2_000, viewer: cache.viewer('w:bob-first-party-idx', 2_000) })),
    ).toBe(false);
  });

  it('never applies to an uncapped campaign, nor to a request that names no user', () => {
    const cache = caps();
    const uncapped = candidateFixture();
    const viewer = cache.viewer('p1:u1', 0);
    viewer?.served(uncapped);
    expect(frequencyCapFilter.reject(uncapped, impFixture({ viewer }))).toBe(false);
    expect(cache.size).toBe(0);
    expect(
      frequencyCapFilter.reject(
        candidateFixture({ frequency_cap: { impressions: 1, period_hours: 1 } }),
        impFixture({ viewer: undefined }),
      ),
    ).toBe(false);
  });
});
