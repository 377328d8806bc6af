import type { Imp } from '@adnet/schemas/openrtb';
import { describe, expect, it } from 'vitest';
import { slotsOf } from './slots.ts';

const video = (v: NonNullable<Imp['video']>): Imp => ({ id: '1', video: v });

describe('slotsOf: video', () => {
  it('offers our VAST 4.0 MP4 only to players that take it, when they say', () => {
    expect(slotsOf(video({}))).toEqual(['video']);
    expect(slotsOf(video({ mimes: ['video/webm', 'video/MP4'], protocols: [2, 3, 7] }))).toEqual(['video']);
    expect(slotsOf(video({ mimes: ['video/webm'] }))).toEqual([]);
    expect(slotsOf(video({ protocols: [2, 3, 5, 6] }))).toEqual([]);
  });

  it('takes sizes of 0 for "not said": no banner slot', () => {
    expect(slotsOf({ id: '1', banner: { w: 0, h: 0, format: [{ w: 0, h: 0 }] } })).toEqual([]);
  });
});
