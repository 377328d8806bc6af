import { describe, expect, it } from 'vitest';
import { EngineMetrics } from './engine-metrics.ts';

const delayMax = (text: string) => Number(/adnet_engine_event_loop_delay_seconds\{stat="max"[^}]*\} ([\d.e-]+)/.exec(text)?.[1]);

describe('the event-loop delay metric', () => {
  it('shows a 100 ms stall at the next scrape, and starts afresh after it', async () => {
    const metrics = new EngineMetrics('test');
    metrics.withProcessMetrics();
    await new Promise((r) => setTimeout(r, 20));
    await metrics.text();
    await new Promise<void>((resolve) =>
      setTimeout(() => {
        const until = performance.now() + 100;
        while (performance.now() < until);
        resolve();
      }, 5),
    );
    await new Promise((r) => setTimeout(r, 20));
    expect(delayMax(await metrics.text())).toBeGreaterThanOrEqual(0.095);
    await new Promise((r) => setTimeout(r, 20));
    expect(delayMax(await metrics.text())).toBeLessThan(0.09);
  });
});
