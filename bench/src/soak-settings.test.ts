import { describe, expect, it } from 'vitest';
import { parseSoakSettings } from './soak-settings.ts';

const error = (env: Record<string, string>) => {
  try {
    parseSoakSettings(env);
  } catch (e) {
    return (e as Error).message;
  }
  throw new Error('accepted');
};

describe('parseSoakSettings', () => {
  it('defaults to 30 minutes with a 5 minute warm-up at 30 actions a second', () => {
    expect(parseSoakSettings({})).toEqual({
      minutes: 30,
      warmupMinutes: 5,
      rate: 30,
      mix: { bid: 4, imp: 4, vast: 2 },
      sampleSeconds: 10,
      engines: 1,
      maxSlopeMiBPerMin: 1,
      changeMs: 1_000,
    });
  });

  it('reads every variable', () => {
    const s = parseSoakSettings({
      BENCH_SOAK_MINUTES: '2',
      BENCH_SOAK_WARMUP_MINUTES: '0.5',
      BENCH_SOAK_RATE: '400',
      BENCH_SOAK_MIX: 'imp',
      BENCH_SOAK_SAMPLE_SECONDS: '5',
      BENCH_SOAK_ENGINES: '2',
      BENCH_SOAK_MAX_SLOPE: '2.5',
      BENCH_SOAK_CHANGE_MS: '500',
    });
    expect(s).toEqual({
      minutes: 2,
      warmupMinutes: 0.5,
      rate: 400,
      mix: { bid: 0, imp: 1, vast: 0 },
      sampleSeconds: 5,
      engines: 2,
      maxSlopeMiBPerMin: 2.5,
      changeMs: 500,
    });
  });

  it.each([
    [{ BENCH_SOAK_MINUTES: '-5' }, 'BENCH_SOAK_MINUTES: must be more than 0'],
    [{ BENCH_SOAK_MINUTES: '0' }, 'BENCH_SOAK_MINUTES: must be more than 0'],
    [{ BENCH_SOAK_MINUTES: 'half an hour' }, 'BENCH_SOAK_MINUTES: must be a number, got "half an hour"'],
    [{ BENCH_SOAK_WARMUP_MINUTES: '-1' }, 'BENCH_SOAK_WARMUP_MINUTES: must not be negative'],
    [
      { BENCH_SOAK_MINUTES: '10', BENCH_SOAK_WARMUP_MINUTES: '12' },
      'BENCH_SOAK_WARMUP_MINUTES: must leave at least 3 samples',
    ],
    [
      { BENCH_SOAK_MINUTES: '5', BENCH_SOAK_WARMUP_MINUTES: '5' },
      'BENCH_SOAK_WARMUP_MINUTES: must leave at least 3 samples',
    ],
    [{ BENCH_SOAK_RATE: '0' }, 'BENCH_SOAK_RATE: must be more than 0'],
    [{ BENCH_SOAK_RATE: 'fast' }, 'BENCH_SOAK_RATE: must be a number, got "fast"'],
    [{ BENCH_SOAK_RATE: '' }, 'BENCH_SOAK_RATE: must be a number, got ""'],
    [{ BENCH_SOAK_MIX: 'bid:2,push:1' }, 'BENCH_SOAK_MIX: "push:1" is not <bid|imp|vast>[:<whole weight>]'],
    [{ BENCH_SOAK_MIX: 'bid:0' }, 'BENCH_SOAK_MIX: gives every action a weight of 0'],
    [{ BENCH_SOAK_MIX: 'imp:-1' }, 'BENCH_SOAK_MIX: "imp:-1" is not'],
    [{ BENCH_SOAK_SAMPLE_SECONDS: '2.5' }, 'BENCH_SOAK_SAMPLE_SECONDS: must be a whole number'],
    [{ BENCH_SOAK_ENGINES: '0' }, 'BENCH_SOAK_ENGINES: must be at least 1'],
    [{ BENCH_SOAK_CHANGE_MS: '10' }, 'BENCH_SOAK_CHANGE_MS: must be at least 100'],
  ])('refuses %j', (env, message) => {
    expect(error(env)).toContain(message);
  });

  it('names every bad variable at once', () => {
    const message = error({ BENCH_SOAK_MINUTES: '-1', BENCH_SOAK_RATE: 'x' });
    expect(message).toContain('BENCH_SOAK_MINUTES');
    expect(message).toContain('BENCH_SOAK_RATE');
    expect(message).not.toContain('BENCH_SOAK_WARMUP_MINUTES');
  });
});
