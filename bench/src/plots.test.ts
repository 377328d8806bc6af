import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { lineChart, niceMax, windowRate, writePlots } from './plots.ts';

describe('bench plots', () => {
  it('rounds axes up to 1, 2 or 5 times a power of ten', () => {
    expect([0, 0.7, 3, 7, 12, 4_100, 30_000].map(niceMax)).toEqual([1, 1, 5, 10, 20, 5_000, 50_000]);
  });

  it('draws one path and one legend entry per series, points in order', () => {
    const svg = lineChart('t', 'x', 'y', [
      {
        name: 'a',
        points: [
          [0, 0],
          [10, 5],
        ],
      },
      { name: 'b & c', points: [[5, 1]] },
    ]);
    expect(svg.match(/<path /g)).toHaveLength(2);
    expect(svg).toContain('>b &amp; c<');
    expect(svg.startsWith('<svg')).toBe(true);
  });

  it('writes the plots of the result files it finds, and nothing for the missing ones', () => {
    const dir = mkdtempSync(join(tmpdir(), 'plots-'));
    try {
      expect(writePlots(dir)).toEqual([]);
      writeFileSync(
        join(dir, 'wrk.json'),
        JSON.stringify({ rows: [{ target: 'engine', endpoint: 'GET /imp', rate: 8_855, cpuUsPerRequest: 89 }] }),
      );
      expect(writePlots(dir)).toEqual(['wrk-cpu.svg', 'wrk-rate.svg']);
      expect(readFileSync(join(dir, 'wrk-rate.svg'), 'utf8')).toContain('engine GET /imp');
      const samples = [0, 1, 2].map((t) => ({ t, lagMs: 100 * t, eventsPerSecond: 150_000 + t }));
      writeFileSync(join(dir, 'pipeline.json'), JSON.stringify({ steady: { offeredRate: 200_000, samples } }));
      expect(writePlots(dir)).toEqual(['wrk-cpu.svg', 'wrk-rate.svg', 'pipeline-rate.svg', 'pipeline-lag.svg']);
      expect(readFileSync(join(dir, 'pipeline-rate.svg'), 'utf8')).toContain('ingested (10 s window): 2, 150002');
      expect(readFileSync(join(dir, 'pipeline-lag.svg'), 'utf8')).toContain('lag: 2, 200');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('draws the pipeline rate over a window: whole batches acknowledged now and then make a steady rate', () => {
    // 1 000 events acknowledged every second, seen in samples every 0.25 s.
    const samples = Array.from({ length: 17 }, (_, i) => ({
      t: i / 4,
      lagMs: 0,
      eventsPerSecond: i > 0 && i % 4 === 0 ? 4_000 : 0,
    }));
    expect(windowRate(samples, 2).slice(-4)).toEqual([
      [3.25, 1_000],
      [3.5, 1_000],
      [3.75, 1_000],
      [4, 1_000],
    ]);
  });
});
