import type { ClickHouseClient } from '@clickhouse/client';

export interface MigrationOptions {
  database: string;
  /** Days raw events are kept. */
  eventTtlDays: number;
  /**
   * A cluster from the servers' `remote_servers` (CLICKHOUSE_CLUSTER). Every
   * statement then runs ON CLUSTER, tables are Replicated per shard, and
   * Distributed tables keep the names a single server uses. Absent: one server
   * (or embedded chDB), with the very statements released before clusters existed.
   */
  cluster?: string;
}

/** A MergeTree table; on a cluster, a Replicated one per shard behind a Distributed table of the same name. */
interface TableDef {
  kind: 'table';
  name: string;
  /** The column list, as written between the parentheses. */
  columns: string;
  engine: 'MergeTree' | 'SummingMergeTree';
  /** ORDER BY and the rest, as written after the engine. */
  layout: string;
  /** Insert blocks remembered so that a retried insert (same token) adds nothing. */
  dedupWindow?: number;
  /**
   * On a cluster: the Distributed table's sharding key. Absent: inserts through
   * the Distributed table are refused once there are several shards.
   */
  shardingKey?: string;
  /** On a cluster: not sharded, no Distributed table; one replica set spanning every node. */
  everywhere?: true;
}

/** A materialized view; `select` names tables through `table` (the local ones on a cluster). */
interface ViewDef {
  kind: 'view';
  name: string;
  to: string;
  select: (table: (name: string) => string) => string;
}

type Def = TableDef | ViewDef;

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

const schemaMigrations: TableDef = {
  kind: 'table',
  name: 'schema_migrations',
  columns: 'version UInt32, applied_at DateTime DEFAULT now()',
  engine: 'MergeTree',
  layout: ' ORDER BY version',
  // Every node holds every applied version, whichever node the admin reaches.
  everywhere: true,
};

/**
 * Versioned schema: each step runs once, in order, and is recorded in
 * `schema_migrations`. Never edit a released step; add the next one.
 *
 * Counting is exactly once through insert deduplication tokens: the raw
 * events table and the hourly table its materialized view feeds both keep a
 * window of recent insert tokens, so an insert retried with its token adds
 * nothing anywhere (see admin/src/ingest/ingester.ts).
 *
 * On a cluster, events are sharded by `cityHash64(id)`: the shard of a row
 * depends on the row alone, so a retried batch (the very same rows, read back
 * from the stream) splits into the very same per-shard blocks, each carrying
 * the batch's token to its shard, where the replicated dedup log drops it if
 * that shard already has it: a retry after a partial failure fills only the
 * shards that missed it. (rand() would send rows elsewhere on a retry: counted
 * twice on one shard, and dropped as a "duplicate" on another.) The ingester
 * inserts with insert_distributed_sync=1, so an acknowledged insert is on
 * every shard, not in a local queue. Each shard's view sums its own events
 * into its own hourly table; reads through the Distributed tables add up the
 * shards (the stats queries sum() anyway). Keep the shard layout unchanged
 * while batches are pending (ingester backlog `pending` at 0), or a retry
 * could split differently.
 */
const steps = (o: MigrationOptions): Def[][] => [
  [
    {
      kind: 'table',
      name: 'events',
      columns: `
      id String,
      type LowCardinality(String),
      ts DateTime64(3, 'UTC'),
      engine LowCardinality(String),
      auction_id String,
      bid_id String,
      partner_id UInt32,
      campaign_id UInt32,
      creative_id UInt32,
      advertiser_id UInt32,
      publisher_id UInt32,
      site_id UInt32,
      zone_id UInt32,
      price_micro_cents Int64,
      charge_nano Int64,
      reason LowCardinality(String),
      country LowCardinality(String),
      device LowCardinality(String),
      site_domain String,
      invalid UInt8
    `,
      engine: 'MergeTree',
      layout: `
    PARTITION BY toYYYYMM(ts)
    ORDER BY (type, ts, id)
    TTL toDateTime(ts) + INTERVAL ${Math.floor(o.eventTtlDays)} DAY`,
      dedupWindow: 10_000,
      shardingKey: 'cityHash64(id)',
    },
    {
      kind: 'table',
      name: 'stats_hourly',
      columns: `
      hour DateTime('UTC'),
      advertiser_id UInt32,
      campaign_id UInt32,
      creative_id UInt32,
      publisher_id UInt32,
      site_id UInt32,
      zone_id UInt32,
      country LowCardinality(String),
      device LowCardinality(String),
      bids UInt64,
      impressions UInt64,
      clicks UInt64,
      invalid_clicks UInt64,
      conversions UInt64,
      spent_nano Int64
    `,
      engine: 'SummingMergeTree',
      layout: `
    ORDER BY (advertiser_id, hour, campaign_id, creative_id, publisher_id, site_id, zone_id, country, device)`,
      dedupWindow: 10_000,
      // No sharding key: only the view writes it, shard by shard.
    },
    {
      kind: 'view',
      name: 'stats_hourly_mv',
      to: 'stats_hourly',
      select: (table) => `
    SELECT
      toStartOfHour(ts) AS hour, advertiser_id, campaign_id, creative_id, publisher_id, site_id, zone_id, country, device,
      countIf(type = 'bid') AS bids,
      countIf(type IN ('win', 'impression')) AS impressions,
      countIf(type = 'click' AND invalid = 0) AS clicks,
      countIf(type = 'click' AND invalid = 1) AS invalid_clicks,
      countIf(type = 'conversion') AS conversions,
      sumIf(charge_nano, type IN ('win', 'impression', 'click') AND invalid = 0) AS spent_nano
    FROM ${table('events')}
    WHERE type != 'nobid'
    GROUP BY hour, advertiser_id, campaign_id, creative_id, publisher_id, site_id, zone_id, country, device`,
    },
  ],
];

/** The statements of a migration: `setup` runs every time, `steps[i]` once, as version i + 1. */
export interface MigrationPlan {
  setup: string[];
  steps: string[][];
}

/**
 * The DDL for one server, or for a cluster when `o.cluster` is set, both from
 * the same step definitions. No ClickHouse cluster runs in this repository's
 * tests: the cluster form is checked as text (migrations.test.ts) and parsed
 * by chDB (admin/test/clickhouse-cluster-ddl.test.ts), never executed.
 */
export function migrationSteps(o: MigrationOptions): MigrationPlan {
  for (const name of [o.database, ...(o.cluster === undefined ? [] : [o.cluster])]) {
    if (!IDENTIFIER.test(name)) throw new Error(`bad identifier ${name}`);
  }
  const db = o.database;
  const cluster = o.cluster;
  const on = cluster ? ` ON CLUSTER ${cluster}` : '';
  const defs = steps(o);
  const sharded = new Set(defs.flat().flatMap((d) => (d.kind === 'table' && !d.everywhere ? [d.name] : [])));
  /** Where a table's rows are stored: on a cluster, `<name>_local` on each shard. */
  const stored = (name: string) => (cluster && sharded.has(name) ? `${name}_local` : name);
  const local = (name: string) => `${db}.${stored(name)}`;

  const table = (d: TableDef): string[] => {
    const name = stored(d.name);
    if (!cluster) {
      const settings = d.dedupWindow ? `\n    SETTINGS non_replicated_deduplication_window = ${d.dedupWindow}` : '';
      return [`CREATE TABLE IF NOT EXISTS ${db}.${name} (${d.columns}) ENGINE = ${d.engine}${d.layout}${settings}`];
    }
    // Explicit Keeper paths with the usual {shard}/{replica} macros rather than the engine's defaults:
    // they do not depend on the servers' default_replica_path or on the database engine (Atomic, UUIDs),
    // and an operator can read them in Keeper. Replicated tables deduplicate inserts (by token when one
    // is given) without any setting; the window is set to the single server's, and entries older than
    // replicated_deduplication_window_seconds (a week by default, as long as the ingester keeps a batch's record) drop out.
    const [path, replica] = d.everywhere ? ['all', '{shard}-{replica}'] : ['{shard}', '{replica}'];
    const engine = `Replicated${d.engine}('/clickhouse/tables/${path}/{database}/${name}', '${replica}')`;
    const settings = d.dedupWindow ? `\n    SETTINGS replicated_deduplication_window = ${d.dedupWindow}` : '';
    const statements = [`CREATE TABLE IF NOT EXISTS ${db}.${name}${on} (${d.columns}) ENGINE = ${engine}${d.layout}${settings}`];
    if (!d.everywhere) {
      const key = d.shardingKey ? `, ${d.shardingKey}` : '';
      statements.push(`CREATE TABLE IF NOT EXISTS ${db}.${d.name}${on} AS ${db}.${name} ENGINE = Distributed(${cluster}, ${db}, ${name}${key})`);
    }
    return statements;
  };
  const view = (d: ViewDef) => `CREATE MATERIALIZED VIEW IF NOT EXISTS ${db}.${d.name}${on} TO ${local(d.to)} AS${d.select(local)}`;

  return {
    setup: [`CREATE DATABASE IF NOT EXISTS ${db}${on}`, ...table(schemaMigrations)],
    steps: defs.map((step) => step.flatMap((d) => (d.kind === 'table' ? table(d) : [view(d)]))),
  };
}

export async function migrate(client: ClickHouseClient, o: MigrationOptions): Promise<number[]> {
  const plan = migrationSteps(o);
  for (const query of plan.setup) await client.command({ query });
  const done = await (
    await client.query({ query: `SELECT version FROM ${o.database}.schema_migrations`, format: 'JSONEachRow' })
  ).json<{ version: number | string }>();
  const applied = new Set(done.map((r) => Number(r.version)));
  const ran: number[] = [];
  for (const [i, statements] of plan.steps.entries()) {
    const version = i + 1;
    if (applied.has(version)) continue;
    for (const query of statements) await client.command({ query });
    await client.insert({ table: `${o.database}.schema_migrations`, values: [{ version }], format: 'JSONEachRow' });
    ran.push(version);
  }
  return ran;
}
