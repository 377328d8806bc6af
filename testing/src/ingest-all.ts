import { resolve } from 'node:path';
import type { TestApp } from './admin.ts';
import { INGEST_COMMAND_TIMEOUT_MS, Ingester } from '@adnet/admin/ingester';
import { connectRedis } from '@adnet/admin/redis';
import type { Engine } from '@adnet/engine/engine';
import { eventually } from './engine.ts';

/** Flushes the engines' events and waits until the admin's own ingester has drained the stream into ClickHouse. */
export async function ingestAll(app: TestApp, engines: Engine[]): Promise<void> {
  const ingester = app.admin.ingester;
  if (!ingester) throw new Error("ingestAll needs an admin that runs its ingester (parts: ['ingester'])");
  await Promise.all(engines.map((e) => e.events.flush()));
  await eventually(async () => {
    const bl = await ingester.backlog();
    return bl.lag === 0 && bl.pending === 0;
  }, 20_000);
}

/**
 * The ingester the admin's `ingester` part runs, started on its own for an admin built without it (a test that
 * first lets the stream fall behind): the same class on a connection of its own, into the admin's event store.
 */
export async function startIngester(app: TestApp): Promise<{ ingester: Ingester; stop(): Promise<void> }> {
  const { config, clickhouse, log } = app.svc;
  if (!clickhouse || !config.storage.redisUrl)
    throw new Error('startIngester needs an admin with its event store and REDIS_URL');
  const redis = connectRedis(config.storage.redisUrl, 'ingest', {
    enableAutoPipelining: false,
    commandTimeout: INGEST_COMMAND_TIMEOUT_MS,
  });
  const ingester = new Ingester({
    redis,
    clickhouse,
    database: config.stats.database,
    log,
    flushMs: 100,
    stagingDir: resolve(config.storage.dataDir, 'clickhouse-ingest'),
  });
  await ingester.start();
  return {
    ingester,
    stop: async () => {
      await ingester.stop();
      await redis.quit();
    },
  };
}
