import { Ingester } from '../../../admin/src/ingest/ingester.ts';
import { createLogger } from '../../../admin/src/log.ts';
import { connectRedis } from '../../../admin/src/storage/redis.ts';
import type { TestApp } from '../../../admin/test/support/app.ts';
import type { Engine } from '../../src/engine.ts';
import { eventually } from './engine-harness.ts';

/** Flushes the engines' events and runs the real ingester until the stream is drained into ClickHouse. */
export async function ingestAll(app: TestApp, engines: Engine[]): Promise<void> {
  await Promise.all(engines.map((e) => e.events.flush()));
  const redis = connectRedis(app.svc.config.redisUrl as string, 'test-ingest', { enableAutoPipelining: false });
  const ingester = new Ingester({
    redis,
    clickhouse: app.svc.clickhouse as NonNullable<typeof app.svc.clickhouse>,
    database: app.svc.config.clickhouseDatabase,
    log: createLogger('silent'),
    flushMs: 100,
  });
  await ingester.start();
  await eventually(async () => {
    const bl = await ingester.backlog();
    return bl.lag === 0 && bl.pending === 0;
  }, 20_000);
  await ingester.stop();
  await redis.quit();
}
