import { createClient } from '@clickhouse/client';
import { describe, expect, it } from 'vitest';
import { createOpsServer } from '../src/http/ops-server.ts';
import { AdminHealth } from '../src/observability/health.ts';
import type { Services } from '../src/services.ts';
import { useTestApp } from '@adnet/test-support/admin';
import { freePort } from '@adnet/test-support/redis';

const fx = useTestApp();

describe("the admin's operators' address", () => {
  it('readyz answers 503 naming what is down while healthz stays 200; metrics count the failure', async () => {
    // ClickHouse on a port nobody listens on.
    const clickhouse = createClient({ url: `http://127.0.0.1:${await freePort()}` });
    const { redis, metrics } = fx.app.svc;
    const health = new AdminHealth({
      redis,
      clickhouse,
      statsLagNoticeMs: 300_000,
      onClickHouseError: () => metrics.error('clickhouse'),
    });
    const svc: Services = { ...fx.app.svc, clickhouse, health };
    await health.start();
    svc.metrics.watch({
      eventStream: () => Promise.resolve({ length: 0, lag: 0, pending: 0 }),
      postbackQueue: () => Promise.resolve(0),
    });
    const ops = createOpsServer(svc);
    const base = `http://127.0.0.1:${await ops.listen(0, '127.0.0.1')}`;
    try {
      const ready = await fetch(`${base}/readyz`);
      expect(ready.status).toBe(503);
      expect(await ready.json()).toMatchObject({
        ok: false,
        redis: 'ready',
        clickhouse: 'unreachable',
        checks: [
          { name: 'redis', state: 'ok' },
          { name: 'clickhouse', state: 'down', detail: expect.stringMatching(/^ping failed: .*ECONNREFUSED/) },
          { name: 'ingester', state: 'ok' },
        ],
      });
      expect((await fetch(`${base}/healthz`)).status).toBe(200);
      const metrics = await fetch(`${base}/metrics`);
      expect(metrics.headers.get('content-type')).toContain('text/plain');
      expect(await metrics.text()).toMatch(/adnet_admin_errors_total\{what="clickhouse"\} [1-9]/);
      expect((await fetch(`${base}/nope`)).status).toBe(404);
      expect((await fetch(`${base}/metrics`, { method: 'POST' })).status).toBe(405);
    } finally {
      health.stop();
      await ops.close();
      await svc.clickhouse?.close();
    }
  });
});
