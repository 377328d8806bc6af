import { DEFAULT_VIDEO_DURATION_S } from '@adnet/schemas/api';
import { describe, expect, it } from 'vitest';
import { candidateFixture, impFixture } from '../../../test/fixtures/auction-fixtures.ts';
import { videoDurationFilter } from './video-duration.ts';

const video = (duration_s: number | null) => candidateFixture({ format: 'video' }, { format: 'video', duration_s });

describe('video duration filter', () => {
  it('rejects a video shorter than minduration or longer than maxduration', () => {
    expect(videoDurationFilter.reject(video(10), impFixture({ minDuration: 15, maxDuration: 30 }))).toBe(true);
    expect(videoDurationFilter.reject(video(31), impFixture({ minDuration: 15, maxDuration: 30 }))).toBe(true);
  });

  it('accepts a video within the bounds (inclusive), and one when no bound is said', () => {
    expect(videoDurationFilter.reject(video(15), impFixture({ minDuration: 15, maxDuration: 30 }))).toBe(false);
    expect(videoDurationFilter.reject(video(30), impFixture({ minDuration: 15, maxDuration: 30 }))).toBe(false);
    expect(videoDurationFilter.reject(video(600), impFixture())).toBe(false);
  });

  it('takes a video without a duration to be DEFAULT_VIDEO_DURATION_S long', () => {
    expect(videoDurationFilter.reject(video(null), impFixture({ maxDuration: DEFAULT_VIDEO_DURATION_S }))).toBe(false);
    expect(videoDurationFilter.reject(video(null), impFixture({ maxDuration: DEFAULT_VIDEO_DURATION_S - 1 }))).toBe(
      true,
    );
  });

  it('never applies to other formats', () => {
    expect(videoDurationFilter.reject(candidateFixture(), impFixture({ minDuration: 100, maxDuration: 101 }))).toBe(
      false,
    );
  });
});
