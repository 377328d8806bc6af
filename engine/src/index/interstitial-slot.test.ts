import { describe, expect, it } from 'vitest';
import { campaignFixture, creativeFixture } from '../../test/fixtures/index-fixtures.ts';
import { placeCampaign } from './engine-index.ts';
import { INTERSTITIAL_SLOT, slotFor } from './slots.ts';

// Which lists a campaign's creatives go in, for interstitial zones (slotFor('interstitial') is theirs).
const creatives = new Map([
  [1, creativeFixture({ id: 1 })],
  [2, creativeFixture({ id: 2, format: 'interstitial', image_width: 320, image_height: 480 })],
]);
const keysOf = (over: Parameters<typeof campaignFixture>[0], ids: number[]) =>
  placeCampaign(campaignFixture({ geo_include: ['us', 'de'], ...over }), creatives, {
    creativeIds: ids,
    sourceList: undefined,
  })?.keys;

describe('the interstitial slot', () => {
  it("is an interstitial zone's, whatever size its creatives are", () => {
    expect(slotFor('interstitial', null, null)).toBe(INTERSTITIAL_SLOT);
  });

  it("holds an opted-in banner campaign's creative beside its banner lists, in each country", () => {
    expect(keysOf({ interstitial: true }, [1])).toEqual([
      'banner:300x250|us',
      'interstitial|us',
      'banner:300x250|de',
      'interstitial|de',
    ]);
    expect(keysOf({}, [1])).toEqual(['banner:300x250|us', 'banner:300x250|de']);
    expect(keysOf({ interstitial: false }, [1])).toEqual(['banner:300x250|us', 'banner:300x250|de']);
  });

  it("holds an interstitial campaign's creatives once, and shares one candidate between an opted-in creative's lists", () => {
    expect(keysOf({ format: 'interstitial' }, [2])).toEqual(['interstitial|us', 'interstitial|de']);
    const placed = placeCampaign(campaignFixture({ interstitial: true }), creatives, {
      creativeIds: [1],
      sourceList: undefined,
    });
    expect(placed?.keys).toEqual(['banner:300x250|*', 'interstitial|*']);
    expect(placed?.cands[0]).toBe(placed?.cands[1]);
    expect(placed?.count).toBe(1);
  });
});
