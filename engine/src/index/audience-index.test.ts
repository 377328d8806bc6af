import { describe, expect, it } from 'vitest';
import type { StoredAudience } from '@adnet/schemas/audiences';
import { audienceIndex, membershipsOf, NO_AUDIENCES } from './audience-index.ts';

const audience = (over: Partial<StoredAudience>): StoredAudience => ({
  id: 1,
  advertiser_id: 1,
  name: 'a',
  source: 'clicked',
  campaign_ids: [],
  lifetime_days: 1,
  pixel_token: null,
  created_at: '',
  ...over,
});

describe('the audience index', () => {
  it('says which audiences each campaign event feeds, which campaigns are watched, and the pixels by token', () => {
    const index = audienceIndex(
      new Map([
        [1, audience({ id: 1, source: 'clicked', campaign_ids: [10, 11], lifetime_days: 2 })],
        [2, audience({ id: 2, source: 'viewed', campaign_ids: [10], lifetime_days: 30 })],
        [3, audience({ id: 3, source: 'converted', campaign_ids: [12] })],
        [4, audience({ id: 4, source: 'pixel', pixel_token: 'T'.repeat(22), lifetime_days: 7 })],
      ]),
    );
    expect(index.clicked.get(10)).toEqual([{ id: 1, lifetimeMs: 2 * 86_400_000 }]);
    expect(index.clicked.get(11)).toEqual([{ id: 1, lifetimeMs: 2 * 86_400_000 }]);
    expect(index.viewed.get(10)).toEqual([{ id: 2, lifetimeMs: 30 * 86_400_000 }]);
    expect(index.viewed.get(11)).toBeUndefined();
    // Converted members come from the click record, so its campaign's ads must name their viewer too.
    expect([...index.watched].sort()).toEqual([10, 11, 12]);
    expect(index.pixels.get('T'.repeat(22))).toEqual({ id: 4, lifetimeMs: 7 * 86_400_000 });
    expect(membershipsOf(index.clicked.get(10), 1_000)).toEqual([{ audienceId: 1, ends: 1_000 + 2 * 86_400_000 }]);
    expect(membershipsOf(undefined, 1_000)).toEqual([]);
  });

  it('is the shared empty index when there are no audiences', () => {
    expect(audienceIndex(undefined)).toBe(NO_AUDIENCES);
    expect(audienceIndex(new Map())).toBe(NO_AUDIENCES);
  });
});
