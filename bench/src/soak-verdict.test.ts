import { describe, expect, it } from 'vitest';
import { slopePerMinute, soakVerdict } from './soak-verdict.ts';
import type { MemorySample, ProcessSeries } from './soak-verdict.ts';

/** Samples every 10 s for `minutes`, growing `perMin` MiB a minute from `base`, with a saw-tooth of ±`noise` MiB (garbage collection). */
const series = (minutes: number, base: number, perMin: number, noise = 0): MemorySample[] =>
  Array.from({ length: minutes * 6 + 1 }, (_, i) => {
    const t = i * 10;
    const y = base + (perMin * t) / 60 + (i % 2 ? noise : -noise);
    return { t, rssMiB: y, heapMiB: y / 2 };
  });

const good = {
  warmupSeconds: 300,
  maxSlopeMiBPerMin: 1,
  counts: [{ type: 'click', emitted: 10, stored: 10, load: 10 }],
  serverErrors: {},
};

describe('slopePerMinute', () => {
  it('is the least-squares slope per minute', () => {
    expect(
      slopePerMinute([
        [0, 100],
        [60, 102],
        [120, 104],
      ]),
    ).toBeCloseTo(2);
    expect(
      slopePerMinute([
        [0, 1],
        [30, 3],
        [60, 2],
        [90, 4],
      ]),
    ).toBeCloseTo(1.6);
    expect(
      slopePerMinute([
        [0, 5],
        [600, 5],
      ]),
    ).toBe(0);
  });

  it('has no slope for fewer than two samples or one instant', () => {
    expect(slopePerMinute([])).toBeNull();
    expect(slopePerMinute([[10, 5]])).toBeNull();
    expect(
      slopePerMinute([
        [10, 5],
        [10, 6],
      ]),
    ).toBeNull();
  });
});

describe('soakVerdict', () => {
  it('passes flat memory, every event stored, no 5xx', () => {
    const processes: ProcessSeries[] = [
      { name: 'engine 1', checked: true, samples: series(30, 400, 0.2, 20) },
      { name: 'admin', checked: true, samples: series(30, 300, 0) },
    ];
    const v = soakVerdict({ ...good, processes });
    expect(v.ok).toBe(true);
    expect(v.slopes.map((s) => [s.name, s.samples, s.rssMiBPerMin])).toEqual([
      ['engine 1', 151, expect.closeTo(0.2, 2)],
      ['admin', 151, 0],
    ]);
    expect(v.checks.map((c) => c.name)).toEqual([
      'engine 1 RSS growth',
      'engine 1 heap growth',
      'admin RSS growth',
      'admin heap growth',
      'click events in ClickHouse',
      'no 5xx answers',
    ]);
  });

  it('fails a process that grows faster than the limit after the warm-up, not during it', () => {
    // Fast growth during the 5 minute warm-up, then flat: passes.
    const warming = series(30, 400, 0).map((s) => (s.t < 300 ? { ...s, rssMiB: 100 + s.t, heapMiB: 50 + s.t } : s));
    expect(soakVerdict({ ...good, processes: [{ name: 'engine 1', checked: true, samples: warming }] }).ok).toBe(true);
    // 410 -> 684 MiB over a run: fails, and says which process and measure.
    const creeping = series(30, 410, 274 / 30);
    const v = soakVerdict({ ...good, processes: [{ name: 'engine 1', checked: true, samples: creeping }] });
    expect(v.ok).toBe(false);
    expect(v.checks.find((c) => c.name === 'engine 1 RSS growth')).toMatchObject({
      ok: false,
      detail: expect.stringContaining('9.133 MiB/min'),
    });
    expect(v.checks.find((c) => c.name === 'engine 1 heap growth')?.ok).toBe(false);
  });

  it('only reports a process that is not checked', () => {
    const v = soakVerdict({ ...good, processes: [{ name: 'redis', checked: false, samples: series(30, 10, 50) }] });
    expect(v.ok).toBe(true);
    expect(v.slopes[0]?.rssMiBPerMin).toBeCloseTo(50);
  });

  it('fails a checked process without enough samples after the warm-up', () => {
    const v = soakVerdict({ ...good, processes: [{ name: 'admin', checked: true, samples: series(4, 300, 0) }] });
    expect(v.checks[0]).toEqual({
      name: 'admin RSS growth',
      ok: false,
      detail: 'no slope: 0 samples after the warm-up',
    });
  });

  it('fails when ClickHouse holds other counts than were emitted or than the load counted', () => {
    const lost = soakVerdict({ ...good, processes: [], counts: [{ type: 'impression', emitted: 100, stored: 99 }] });
    expect(lost.checks[0]).toEqual({
      name: 'impression events in ClickHouse',
      ok: false,
      detail: 'emitted 100, stored 99',
    });
    const doubled = soakVerdict({
      ...good,
      processes: [],
      counts: [{ type: 'click', emitted: 12, stored: 12, load: 10 }],
    });
    expect(doubled.ok).toBe(false);
    expect(soakVerdict({ ...good, processes: [], counts: [] }).ok).toBe(false);
  });

  it('fails on any 5xx answer and names the route', () => {
    const v = soakVerdict({ ...good, processes: [], serverErrors: { 'GET /b': 0, 'PATCH /api/adv/campaigns': 2 } });
    expect(v.ok).toBe(false);
    expect(v.checks.at(-1)).toEqual({ name: 'no 5xx answers', ok: false, detail: 'PATCH /api/adv/campaigns: 2' });
  });
});
