import type { ClickHouseClient } from '@clickhouse/client';

export interface MigrationOptions {
  database: string;
  /** Days raw events are kept. */
  eventTtlDays: number;
}

/**
 * Versioned schema: each step runs once, in order, and is recorded in
 * `schema_migrations`. Never edit a released step; add the next one.
 *
 * Counting is exactly once through insert deduplication tokens: the raw
 * events table and the hourly table its materialized view feeds both keep a
 * window of recent insert tokens, so an insert retried with its token adds
 * nothing anywhere (see admin/src/ingest/ingester.ts).
 */
const steps = (o: MigrationOptions): string[][] => [
  [
    `CREATE TABLE IF NOT EXISTS ${o.database}.events (
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
    ) ENGINE = MergeTree
    PARTITION BY toYYYYMM(ts)
    ORDER BY (type, ts, id)
    TTL toDateTime(ts) + INTERVAL ${Math.floor(o.eventTtlDays)} DAY
    SETTINGS non_replicated_deduplication_window = 10000`,
    `CREATE TABLE IF NOT EXISTS ${o.database}.stats_hourly (
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
    ) ENGINE = SummingMergeTree
    ORDER BY (advertiser_id, hour, campaign_id, creative_id, publisher_id, site_id, zone_id, country, device)
    SETTINGS non_replicated_deduplication_window = 10000`,
    `CREATE MATERIALIZED VIEW IF NOT EXISTS ${o.database}.stats_hourly_mv TO ${o.database}.stats_hourly AS
    SELECT
      toStartOfHour(ts) AS hour, advertiser_id, campaign_id, creative_id, publisher_id, site_id, zone_id, country, device,
      countIf(type = 'bid') AS bids,
      countIf(type IN ('win', 'impression')) AS impressions,
      countIf(type = 'click' AND invalid = 0) AS clicks,
      countIf(type = 'click' AND invalid = 1) AS invalid_clicks,
      countIf(type = 'conversion') AS conversions,
      sumIf(charge_nano, type IN ('win', 'impression', 'click') AND invalid = 0) AS spent_nano
    FROM ${o.database}.events
    WHERE type != 'nobid'
    GROUP BY hour, advertiser_id, campaign_id, creative_id, publisher_id, site_id, zone_id, country, device`,
  ],
];

export async function migrate(client: ClickHouseClient, o: MigrationOptions): Promise<number[]> {
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(o.database)) throw new Error(`bad database name ${o.database}`);
  await client.command({ query: `CREATE DATABASE IF NOT EXISTS ${o.database}` });
  await client.command({
    query: `CREATE TABLE IF NOT EXISTS ${o.database}.schema_migrations (version UInt32, applied_at DateTime DEFAULT now()) ENGINE = MergeTree ORDER BY version`,
  });
  const done = await (await client.query({ query: `SELECT version FROM ${o.database}.schema_migrations`, format: 'JSONEachRow' })).json<{ version: number | string }>();
  const applied = new Set(done.map((r) => Number(r.version)));
  const ran: number[] = [];
  for (const [i, statements] of steps(o).entries()) {
    const version = i + 1;
    if (applied.has(version)) continue;
    for (const query of statements) await client.command({ query });
    await client.insert({ table: `${o.database}.schema_migrations`, values: [{ version }], format: 'JSONEachRow' });
    ran.push(version);
  }
  return ran;
}
