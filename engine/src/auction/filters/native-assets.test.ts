import { describe, expect, it } from 'vitest';
import { candidateOf } from '../../index/candidate.ts';
import { campaignFixture, creativeFixture } from '../../../test/fixtures/index-fixtures.ts';
import { parseNativeRequest } from '../../openrtb/native-request.ts';
import { impFixture } from '../../../test/fixtures/auction-fixtures.ts';
import { nativeAssetsFilter } from './native-assets.ts';

const native = candidateOf(
  campaignFixture({ format: 'native' }),
  creativeFixture({
    format: 'native',
    title: 'Fresh deals',
    body: 'All week',
    cta_text: null,
    image_width: 300,
    image_height: 300,
  }),
);
const asking = (assets: unknown[]) =>
  impFixture({ nativeAssets: parseNativeRequest(JSON.stringify({ ver: '1.2', assets })) });

describe('native assets filter', () => {
  it('bids when every required asset is filled, whatever the optional ones', () => {
    const imp = asking([
      { id: 7, required: 1, title: { len: 25 } },
      { id: 8, required: 1, img: { type: 3, wmin: 200, hmin: 200 } },
      { id: 9, required: 0, data: { type: 12, len: 15 } },
    ]);
    expect(nativeAssetsFilter.reject(native, imp)).toBe(false);
  });

  it('passes when a required asset is too short for the text, too big for the image, or of a kind we lack', () => {
    expect(nativeAssetsFilter.reject(native, asking([{ id: 1, required: 1, title: { len: 5 } }]))).toBe(true);
    expect(
      nativeAssetsFilter.reject(native, asking([{ id: 1, required: 1, img: { type: 3, wmin: 600, hmin: 600 } }])),
    ).toBe(true);
    expect(nativeAssetsFilter.reject(native, asking([{ id: 1, required: 1, data: { type: 1 } }]))).toBe(true);
    expect(nativeAssetsFilter.reject(native, asking([{ id: 1, required: 1, data: { type: 12 } }]))).toBe(true);
  });

  it('judges nothing without a readable request, and no other format', () => {
    expect(nativeAssetsFilter.reject(native, impFixture({ nativeAssets: parseNativeRequest('{}') }))).toBe(false);
    expect(nativeAssetsFilter.reject(native, impFixture({ nativeAssets: parseNativeRequest('not json') }))).toBe(false);
    const banner = candidateOf(campaignFixture(), creativeFixture());
    expect(nativeAssetsFilter.reject(banner, asking([{ id: 1, required: 1, data: { type: 1 } }]))).toBe(false);
  });
});
