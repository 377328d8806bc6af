import { describe, expect, it } from 'vitest';
import { sampleMp4 } from './sample-mp4.ts';
import { nextStep, speechSeconds } from './video-jobs.ts';

describe('video job states', () => {
  it('follows the provider, and fails a job that runs past its maximum age', () => {
    expect(nextStep({ status: 'processing' }, 10, 100)).toEqual({ kind: 'wait' });
    expect(nextStep('unreachable', 10, 100)).toEqual({ kind: 'wait' });
    expect(nextStep({ status: 'completed', videoUrl: 'https://v/x.mp4', durationSec: 7 }, 500, 100)).toEqual({
      kind: 'complete',
      videoUrl: 'https://v/x.mp4',
      durationSec: 7,
    });
    expect(nextStep({ status: 'failed', reason: 'bad avatar' }, 10, 100)).toEqual({
      kind: 'fail',
      reason: 'bad avatar',
    });
    expect(nextStep({ status: 'processing' }, 100, 100)).toEqual({
      kind: 'fail',
      reason: 'the video provider did not finish in time',
    });
    expect(nextStep('unreachable', 100, 100)).toEqual({
      kind: 'fail',
      reason: 'the video provider could not be reached in time',
    });
  });

  it('estimates spoken seconds at 150 words per minute', () => {
    expect(speechSeconds('')).toBe(1);
    expect(speechSeconds('one two three')).toBe(2);
    expect(speechSeconds(Array(150).fill('word').join(' '))).toBe(60);
  });
});

describe('sample MP4', () => {
  it('is an ftyp box then a moov box whose mvhd carries the duration', () => {
    const mp4 = sampleMp4(12);
    expect(mp4.toString('latin1', 4, 8)).toBe('ftyp');
    const ftypSize = mp4.readUInt32BE(0);
    expect(mp4.toString('latin1', ftypSize + 4, ftypSize + 8)).toBe('moov');
    expect(mp4.readUInt32BE(ftypSize)).toBe(mp4.length - ftypSize);
    const mvhd = ftypSize + 8;
    expect(mp4.toString('latin1', mvhd + 4, mvhd + 8)).toBe('mvhd');
    expect(mp4.readUInt32BE(mvhd)).toBe(108);
    // header 8, version+flags 4, two times 8: timescale at +20, duration at +24
    expect(mp4.readUInt32BE(mvhd + 24) / mp4.readUInt32BE(mvhd + 20)).toBe(12);
  });
});
