import type { DependencyCheck } from '@adnet/schemas/readiness';
import { describe, expect, it } from 'vitest';
import { startRedis } from '@adnet/test-support/redis';
import { eventually, startEngine } from '@adnet/test-support/engine';

interface Ready {
  ok: boolean;
  redis: string;
  index_seq: string | null;
  index_published_ms: number | null;
  checks: DependencyCheck[];
}

const state = (body: Ready, name: string) => body.checks.find((c) => c.name === name)?.state;

describe("an engine's operators' address", () => {
  it('is ready with its index and Redis; names Redis hung (answering within a second) and down; alive all along', async () => {
    const startedAt = Date.now();
    const redis = await startRedis();
    const engine = await startEngine(redis.url);
    let stopped = false;
    const base = `http://127.0.0.1:${await engine.engine.listenOps(0, '127.0.0.1')}`;
    let slowest = 0;
    const ready = async () => {
      const started = performance.now();
      const r = await fetch(`${base}/readyz`, { signal: AbortSignal.timeout(5_000) });
      const body = (await r.json()) as Ready;
      slowest = Math.max(slowest, performance.now() - started);
      return { status: r.status, body };
    };
    try {
      expect(await ready()).toMatchObject({ status: 200, body: { ok: true, redis: 'ready' } });
      const first = (await ready()).body;
      expect(first.index_seq).not.toBeNull();
      expect(first.checks.map((c) => [c.name, c.state])).toEqual([
        ['redis', 'ok'],
        ['index', 'ok'],
        ['config-mirror', 'ok'],
        ['event-writer', 'ok'],
        ['journal', 'ok'],
      ]);
      // When the index was published: after the engine started, not in the future.
      const published = first.index_published_ms ?? 0;
      expect(published).toBeGreaterThan(startedAt);
      expect(published).toBeLessThanOrEqual(Date.now() + 1);
      expect(await (await fetch(`${base}/metrics`)).text()).toContain('adnet_engine_process_cpu_seconds_total');
      // The public port serves no metrics.
      expect((await fetch(`${engine.base}/metrics`)).status).toBe(404);

      // A hung Redis (SIGSTOP: its connections stay open, commands just queue): named hung, answered at once.
      redis.freeze();
      try {
        slowest = 0;
        await eventually(async () => state((await ready()).body, 'redis') === 'hung', 10_000);
        const hung = await ready();
        expect(hung).toMatchObject({ status: 503, body: { ok: false, redis: 'hung' } });
        expect(hung.body.checks.find((c) => c.name === 'redis')?.detail).toMatch(/^PING unanswered for \d+\.\d s$/);
        // The public port's own probe too.
        const pub = await fetch(`${engine.base}/engine/readyz`, { signal: AbortSignal.timeout(1_000) });
        expect(pub.status).toBe(503);
        expect(slowest).toBeLessThan(1_000);
      } finally {
        redis.thaw();
      }
      await eventually(async () => (await ready()).status === 200, 10_000);
      expect(state((await ready()).body, 'redis')).toBe('ok');

      await redis.stop();
      stopped = true;
      slowest = 0;
      await eventually(async () => (await ready()).status === 503, 10_000);
      const down = (await ready()).body;
      expect(down.redis).not.toBe('ready');
      expect(down.checks.find((c) => c.name === 'redis')).toMatchObject({
        state: 'down',
        detail: expect.stringMatching(/^connection /),
      });
      expect(slowest).toBeLessThan(1_000);
      // The mirror's catch-ups stall with Redis gone: behind after MIRROR_BEHIND_MS (10 s), without failing more.
      await eventually(async () => state((await ready()).body, 'config-mirror') === 'behind', 15_000);
      expect((await fetch(`${base}/healthz`)).status).toBe(200);
    } finally {
      await engine.stop();
      if (!stopped) await redis.stop();
    }
  }, 60_000);
});
