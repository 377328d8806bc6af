import type { Imp } from '@adnet/schemas/openrtb';
import { describe, expect, it } from 'vitest';
import { videoVastVersion } from '../openrtb/vast-version.ts';
import { slotsOf } from './slots.ts';

const video = (v: NonNullable<Imp['video']>): Imp => ({ id: '1', video: v });
const slots = (imp: Imp) => slotsOf(imp, imp.video !== undefined && videoVastVersion(imp.video) !== undefined);

describe('slotsOf: video', () => {
  it('offers our MP4 only to players that take it and one of our VAST versions, when they say', () => {
    expect(slots(video({}))).toEqual(['video']);
    expect(slots(video({ mimes: ['video/webm', 'video/MP4'], protocols: [2, 3, 7] }))).toEqual(['video']);
    expect(slots(video({ mimes: ['video/webm'] }))).toEqual([]);
    expect(slots(video({ protocols: [2, 3, 5, 6] }))).toEqual(['video']);
    expect(slots(video({ protocols: [2, 3] }))).toEqual(['video']);
    expect(slots(video({ protocols: [11] }))).toEqual([]);
    expect(slots(video({ protocols: [99] }))).toEqual([]);
    expect(slots(video({ protocols: [5, 6, 8] }))).toEqual([]);
  });

  it('takes sizes of 0 for "not said": no banner slot', () => {
    expect(slotsOf({ id: '1', banner: { w: 0, h: 0, format: [{ w: 0, h: 0 }] } }, false)).toEqual([]);
  });
});
