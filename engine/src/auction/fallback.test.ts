import { describe, expect, it } from 'vitest';
import { inventoryControls } from '../index/inventory-controls.ts';
import { fallbackFor } from './fallback.ts';

const withFallback = (type: 'html' | 'url' | 'none', value: string | null) =>
  inventoryControls({ fallback: { type, value } }, undefined);

describe('the fallback of an unfilled zone', () => {
  it("answers with the publisher's HTML or URL whatever left the zone unfilled", () => {
    expect(fallbackFor(withFallback('html', '<b>x</b>'), 'no_candidates')).toEqual({
      fallback: { type: 'html', value: '<b>x</b>' },
    });
    expect(fallbackFor(withFallback('url', 'https://h.example/'), 'below_floor')).toEqual({
      fallback: { type: 'url', value: 'https://h.example/' },
    });
  });

  it('has none for invalid traffic, nor where the publisher set none', () => {
    for (const reason of ['bot_traffic', 'address_flood', 'fingerprint_flood', 'foreign_origin'] as const)
      expect(fallbackFor(withFallback('html', '<b>x</b>'), reason)).toBeUndefined();
    expect(fallbackFor(withFallback('none', null), 'no_candidates')).toBeUndefined();
    expect(fallbackFor(undefined, 'no_candidates')).toBeUndefined();
  });
});
