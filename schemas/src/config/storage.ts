import { join } from 'node:path';
import { z } from 'zod';
import { parseRedisTarget } from '../redis-target.ts';

/** Where state is kept: the data folder, Redis, and the engines' journal. */
export const storageSlice = z
  .object({
    /** Where the private Redis, the embedded ClickHouse (`clickhouse/`, and `clickhouse-ingest/`: the batch files the ingester hands it) and uploaded media are kept. */
    DATA_DIR: z.string().min(1).default('./data'),
    /**
     * `redis://[:password@]host:port[/db]` or `rediss://...`; a Redis Cluster:
     * `redis+cluster://[user:password@]host:port,host:port,...` (any reachable seed nodes; `rediss+cluster://` for
     * TLS). Unset: `pnpm start` runs `redis-server` with AOF under `DATA_DIR/redis`, with a password made once
     * and kept in `DATA_DIR/redis/redis.password` (owner-only).
     */
    REDIS_URL: z
      .string()
      .refine(
        (v) => parseRedisTarget(v) !== undefined,
        'must be redis://host:port, rediss://host:port or redis+cluster://host:port,host:port',
      )
      .optional(),
    /** Where engines journal the tracking requests they answer while Redis is away (each takes a `slot-<n>` folder). Unset: `DATA_DIR/journal`. */
    JOURNAL_DIR: z.string().min(1).optional(),
  })
  .transform((e) => ({
    dataDir: e.DATA_DIR,
    redisUrl: e.REDIS_URL,
    journalDir: e.JOURNAL_DIR ?? join(e.DATA_DIR, 'journal'),
  }));
export type StorageConfig = z.output<typeof storageSlice>;
