import { describe, expect, it } from 'vitest';
import { startRedis } from '../../tests/e2e/support/redis.ts';
import { eventually, startEngine } from '../../tests/e2e/support/engine.ts';

describe("an engine's operators' address", () => {
  it('is ready with its index and Redis, not ready while Redis is gone, alive all along', async () => {
    const startedAt = Date.now();
    const redis = await startRedis();
    const engine = await startEngine(redis.url);
    let stopped = false;
    const base = `http://127.0.0.1:${await engine.engine.listenOps(0, '127.0.0.1')}`;
    const ready = async () => {
      const r = await fetch(`${base}/readyz`);
      return { status: r.status, body: (await r.json()) as { ok: boolean; redis: string; index_seq: string | null; index_published_ms: number | null } };
    };
    try {
      expect(await ready()).toMatchObject({ status: 200, body: { ok: true, redis: 'ready' } });
      expect((await ready()).body.index_seq).not.toBeNull();
      // When the index was published: after the engine started, not in the future.
      const published = (await ready()).body.index_published_ms ?? 0;
      expect(published).toBeGreaterThan(startedAt);
      expect(published).toBeLessThanOrEqual(Date.now() + 1);
      expect(await (await fetch(`${base}/metrics`)).text()).toContain('adnet_engine_process_cpu_seconds_total');
      // The public port serves no metrics.
      expect((await fetch(`${engine.base}/metrics`)).status).toBe(404);
      await redis.stop();
      stopped = true;
      await eventually(async () => (await ready()).status === 503, 10_000);
      expect((await ready()).body.redis).not.toBe('ready');
      expect((await fetch(`${base}/healthz`)).status).toBe(200);
    } finally {
      await engine.stop();
      if (!stopped) await redis.stop();
    }
  }, 60_000);
});
