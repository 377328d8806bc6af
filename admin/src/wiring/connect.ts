import type { Config } from '@adnet/schemas/config';
import { resolve } from 'node:path';
import { migrate } from '../clickhouse/migrations.ts';
import { openClickHouse } from '../clickhouse/open.ts';
import type { ClickHouseClient } from '../clickhouse/open.ts';
import { INGEST_COMMAND_TIMEOUT_MS, Ingester } from '../ingest/ingester.ts';
import type { Logger } from '../log.ts';
import { connectRedis } from '../storage/redis.ts';
import type { Redis } from '../storage/redis.ts';
import type { Stopper } from './stop-order.ts';

/** The main Redis connection, answering before anything is built on it; its errors are counted for /metrics. */
export async function connectAdminRedis(
  url: string,
  log: Logger,
  stopper: Stopper,
): Promise<{ redis: Redis; redisErrors: () => number }> {
  const redis = connectRedis(url, 'admin');
  let errors = 0;
  redis.on('error', (err) => {
    errors++;
    log.warn({ event: 'redis.error', err: err.message }, 'redis connection error');
  });
  redis.on('ready', () => log.info({ event: 'redis.ready' }, 'redis connection ready'));
  stopper.add('redis client', () => redis.quit());
  await redis.ping();
  return { redis, redisErrors: () => errors };
}

/** The event store, migrated before anything serves. */
export async function openEventStore(config: Config, log: Logger, stopper: Stopper): Promise<ClickHouseClient> {
  const clickhouse = await openClickHouse(config);
  stopper.add('clickhouse', () => clickhouse.close());
  const ran = await migrate(clickhouse, {
    database: config.clickhouseDatabase,
    eventTtlDays: config.eventTtlDays,
    cluster: config.clickhouseCluster,
  });
  if (ran.length) log.info({ event: 'clickhouse.migrated', versions: ran }, 'clickhouse migrated');
  return clickhouse;
}

export function buildIngester(
  config: Config,
  {
    redisUrl,
    log,
    clickhouse,
    stopper,
  }: { redisUrl: string; log: Logger; clickhouse: ClickHouseClient | undefined; stopper: Stopper },
): Ingester {
  if (!clickhouse) throw new Error('the ingester needs ClickHouse');
  // Its own connection: the ingester blocks on XREADGROUP.
  const redis = connectRedis(redisUrl, 'ingest', {
    enableAutoPipelining: false,
    commandTimeout: INGEST_COMMAND_TIMEOUT_MS,
  });
  const ingester = new Ingester({
    redis,
    clickhouse,
    database: config.clickhouseDatabase,
    log,
    batchRows: config.ingestBatchRows,
    flushMs: config.ingestFlushMs,
    distributed: config.clickhouseCluster !== undefined,
    // Embedded chDB reads each batch from a RowBinary file (one process opens the chDB folder, so this one is its own).
    ...(config.clickhouseUrl ? {} : { stagingDir: resolve(config.dataDir, 'clickhouse-ingest') }),
  });
  stopper.add('ingester', async () => (await ingester.stop(), await redis.quit()));
  return ingester;
}
