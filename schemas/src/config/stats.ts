import { z } from 'zod';
import { identifier, problem } from './fields.ts';

/** Events and statistics in ClickHouse (the admin only): the server, the ingester, freshness. */
export const statsSlice = z
  .object({
    /** A ClickHouse server, `http(s)://user:password@host:8123`. Unset: embedded chDB under `DATA_DIR/clickhouse`. */
    CLICKHOUSE_URL: z.url({ protocol: /^https?$/ }).optional(),
    /**
     * A cluster from the servers' `remote_servers`: migrations run ON CLUSTER it, with replicated tables and
     * Distributed ones in front (see docs/deployment.md); needs CLICKHOUSE_URL.
     */
    CLICKHOUSE_CLUSTER: identifier.optional(),
    /** Database for events and statistics. */
    CLICKHOUSE_DATABASE: identifier.default('adnet'),
    /** How long raw events are kept in ClickHouse, in days. */
    EVENT_TTL_DAYS: z.coerce.number().int().min(1).max(3650).default(90),
    /**
     * The ingester inserts once this many rows wait (or INGEST_FLUSH_MS after the first arrived). Each insert
     * costs a part and a pass of the views whatever its size: 5 000-row batches took twice the CPU per event
     * of 50 000-row ones, and 100 000-row ones a quarter less again (bench/results/ab-history.md, "Events into
     * ClickHouse"). Only a stream past 100 000 events/s fills one before INGEST_FLUSH_MS.
     */
    INGEST_BATCH_ROWS: z.coerce.number().int().min(1).max(1_000_000).default(100_000),
    /** The ingester inserts this long after the first row of a batch arrived (or sooner, at INGEST_BATCH_ROWS). */
    INGEST_FLUSH_MS: z.coerce.number().int().min(10).max(60_000).default(1_000),
    /**
     * Statistics are behind when the oldest event in the stream not yet in ClickHouse is older than this (ms): `/readyz`
     * names the ingester `behind`, `GET /api/stats/freshness` says so and the cabinet shows a notice on its statistics.
     */
    STATS_LAG_NOTICE_MS: z.coerce.number().int().min(1_000).max(86_400_000).default(300_000),
  })
  .transform((e, ctx) => {
    if (e.CLICKHOUSE_CLUSTER && !e.CLICKHOUSE_URL)
      problem(ctx, 'CLICKHOUSE_CLUSTER', 'needs CLICKHOUSE_URL: embedded chDB is a single server');
    return {
      clickhouseUrl: e.CLICKHOUSE_URL,
      database: e.CLICKHOUSE_DATABASE,
      cluster: e.CLICKHOUSE_CLUSTER,
      eventTtlDays: e.EVENT_TTL_DAYS,
      ingestBatchRows: e.INGEST_BATCH_ROWS,
      ingestFlushMs: e.INGEST_FLUSH_MS,
      /** STATS_LAG_NOTICE_MS: statistics older than this behind the event stream are reported behind. */
      lagNoticeMs: e.STATS_LAG_NOTICE_MS,
    };
  });
export type StatsConfig = z.output<typeof statsSlice>;
