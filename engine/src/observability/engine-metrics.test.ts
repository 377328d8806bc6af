import { envSchema } from '@adnet/schemas/config';
import { describe, expect, it } from 'vitest';
import { EngineMetrics } from './engine-metrics.ts';

const delayMax = (text: string) =>
  Number(/adnet_engine_event_loop_delay_seconds\{stat="max"[^}]*\} ([\d.e-]+)/.exec(text)?.[1]);
const DEFAULT_RESOLUTION_MS = envSchema.shape.METRICS_LOOP_DELAY_RESOLUTION_MS.parse(undefined);
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Holds the loop for `ms`, from a timer (so the sampler's own timer is pending meanwhile). */
const stall = (ms: number) =>
  new Promise<void>((resolve) =>
    setTimeout(() => {
      const until = performance.now() + ms;
      while (performance.now() < until);
      resolve();
    }, 5),
  );

describe('the event-loop delay metric', () => {
  it('shows a 100 ms stall at the next scrape, and starts afresh after it', async () => {
    const metrics = new EngineMetrics('test');
    metrics.withProcessMetrics(DEFAULT_RESOLUTION_MS);
    await pause(20);
    await metrics.text();
    await stall(100);
    await pause(20);
    expect(delayMax(await metrics.text())).toBeGreaterThanOrEqual(0.095);
    await pause(20);
    expect(delayMax(await metrics.text())).toBeLessThan(0.09);
  });

  it('samples at the configured interval: a stall longer than it shows, shorter by the interval at worst', async () => {
    expect(DEFAULT_RESOLUTION_MS).toBe(5);
    const metrics = new EngineMetrics('test');
    metrics.withProcessMetrics(DEFAULT_RESOLUTION_MS);
    await pause(20);
    const first = await metrics.text();
    expect(first).toContain('sampled every 5 ms');
    await stall(20);
    await pause(10);
    expect(delayMax(await metrics.text())).toBeGreaterThanOrEqual(0.015 - 0.0005);
  });
});
