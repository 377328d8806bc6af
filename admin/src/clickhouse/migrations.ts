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

/** A column added to a table (and, on a cluster, to its Distributed table too). */
interface ColumnDef {
  kind: 'column';
  table: string;
  /** Name and type, as in a column list. */
  column: string;
}

/**
 * Columns that join a table's sorting key: ADD COLUMN and MODIFY ORDER BY in one ALTER, since ClickHouse
 * lets a key grow only by columns the same ALTER adds. A SummingMergeTree sums the rows of one key, so a
 * new dimension of its rows must be in the key. The primary key (the index) stays the old one, a prefix
 * of the new order. On a cluster the Distributed table, which has no key, gets the columns only.
 */
interface KeyColumnsDef {
  kind: 'keyColumns';
  table: string;
  /** Name and type of each, as in a column list. */
  columns: string[];
  /** The new sorting key: the old one followed by the new columns. */
  orderBy: string;
}

/** A materialized view's new SELECT (ALTER ... MODIFY QUERY): it applies to inserts from then on. */
interface ViewQueryDef {
  kind: 'viewQuery';
  name: string;
  select: (table: (name: string) => string) => string;
}

/**
 * Rows computed from tables already there, inserted once (e.g. a new column's past, from the raw
 * events). Single server only: on a cluster each shard would have to insert its own, which an
 * INSERT cannot do ON CLUSTER (docs/deployment.md says how to run it by hand there).
 */
interface BackfillDef {
  kind: 'backfill';
  into: string;
  columns: string;
  select: (table: (name: string) => string) => string;
}

type Def = TableDef | ViewDef | ColumnDef | KeyColumnsDef | ViewQueryDef | BackfillDef;

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
  // 1: raw events and the hourly statistics.
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
      select: (table) =>
        statsHourlySelect(table, DIMS_V1, [
          "countIf(type = 'bid') AS bids",
          "countIf(type IN ('win', 'impression')) AS impressions",
          "countIf(type = 'click' AND invalid = 0) AS clicks",
          "countIf(type = 'click' AND invalid = 1) AS invalid_clicks",
          "countIf(type = 'conversion') AS conversions",
          "sumIf(charge_nano, type IN ('win', 'impression', 'click') AND invalid = 0) AS spent_nano",
        ]),
    },
  ],
  // 2: viewable impressions in the hourly statistics; traffic not counted, by reason, for publishers.
  [
    { kind: 'column', table: 'stats_hourly', column: 'viewable_impressions UInt64' },
    {
      kind: 'viewQuery',
      name: 'stats_hourly_mv',
      select: (table) => statsHourlySelect(table, DIMS_V1, COUNTS_V2),
    },
    {
      kind: 'backfill',
      into: 'stats_hourly',
      columns:
        'hour, advertiser_id, campaign_id, creative_id, publisher_id, site_id, zone_id, country, device, viewable_impressions',
      select: (table) => `
    SELECT toStartOfHour(ts) AS hour, advertiser_id, campaign_id, creative_id, publisher_id, site_id, zone_id, country, device, count()
    FROM ${table('events')}
    WHERE type = 'viewable'
    GROUP BY hour, advertiser_id, campaign_id, creative_id, publisher_id, site_id, zone_id, country, device`,
    },
    {
      kind: 'table',
      name: 'uncounted_hourly',
      columns: `
      hour DateTime('UTC'),
      publisher_id UInt32,
      site_id UInt32,
      zone_id UInt32,
      of LowCardinality(String),
      reason LowCardinality(String),
      events UInt64
    `,
      engine: 'SummingMergeTree',
      layout: `
    ORDER BY (publisher_id, hour, site_id, zone_id, of, reason)`,
      dedupWindow: 10_000,
    },
    {
      kind: 'view',
      name: 'uncounted_hourly_mv',
      to: 'uncounted_hourly',
      select: (table) => `${uncountedSelect(table)}`,
    },
    {
      kind: 'backfill',
      into: 'uncounted_hourly',
      columns: 'hour, publisher_id, site_id, zone_id, of, reason, events',
      select: uncountedSelect,
    },
  ],
  // 3: the viewer's OS and browser families in the raw events and as dimensions of the hourly statistics.
  // Rows already summed keep empty ones: the raw events before this step never had them.
  [
    { kind: 'column', table: 'events', column: 'os LowCardinality(String)' },
    { kind: 'column', table: 'events', column: 'browser LowCardinality(String)' },
    {
      kind: 'keyColumns',
      table: 'stats_hourly',
      columns: ['os LowCardinality(String)', 'browser LowCardinality(String)'],
      orderBy:
        '(advertiser_id, hour, campaign_id, creative_id, publisher_id, site_id, zone_id, country, device, os, browser)',
    },
    {
      kind: 'viewQuery',
      name: 'stats_hourly_mv',
      select: (table) => statsHourlySelect(table, DIMS_V3, COUNTS_V2),
    },
  ],
  // 4: fallbacks, the unfilled
  // requests of a zone answered with its publisher's own ad. Their rows have no advertiser (advertiser_id 0);
  // only the publishers' statistics read them. The view's query is the previous step's plus the count.
  [
    { kind: 'column', table: 'stats_hourly', column: 'fallbacks UInt64' },
    {
      kind: 'viewQuery',
      name: 'stats_hourly_mv',
      select: (table) => statsHourlySelect(table, DIMS_V3, COUNTS_V4),
    },
  ],
  // 5: the placement by name (`source`: our site's registrable domain, the exchange's site.domain or
  // app.bundle; engine/src/inventory/source.ts) in the raw events and as a dimension of the hourly
  // statistics, the advertisers' placement report. The view keeps every column of step 4 (fallbacks
  // included). Rows summed before this step keep an empty source: their raw events never had one.
  [
    { kind: 'column', table: 'events', column: 'source LowCardinality(String)' },
    {
      kind: 'keyColumns',
      table: 'stats_hourly',
      columns: ['source LowCardinality(String)'],
      orderBy:
        '(advertiser_id, hour, campaign_id, creative_id, publisher_id, site_id, zone_id, country, device, os, browser, source)',
    },
    {
      kind: 'viewQuery',
      name: 'stats_hourly_mv',
      select: (table) => statsHourlySelect(table, DIMS_V5, COUNTS_V4),
    },
  ],
  // 6: external demand (docs/demand.md): a demand partner's impression on our zones (`demand_impression`,
  // its partner in `demand_partner_id`, 0 for our own campaigns) in the raw events and as a dimension of
  // the hourly statistics. It counts as an impression and its price as spend (what the partner pays), so
  // the publisher's share of it is earnings as our campaigns' spend is, payouts included. Its rows have no
  // advertiser (advertiser_id 0). Rows summed before this step are our own campaigns' (partner 0).
  [
    { kind: 'column', table: 'events', column: 'demand_partner_id UInt32' },
    {
      kind: 'keyColumns',
      table: 'stats_hourly',
      columns: ['demand_partner_id UInt32'],
      orderBy:
        '(advertiser_id, hour, campaign_id, creative_id, publisher_id, site_id, zone_id, country, device, os, browser, source, demand_partner_id)',
    },
    {
      kind: 'viewQuery',
      name: 'stats_hourly_mv',
      select: (table) => statsHourlySelect(table, STEP6_DIMS, STEP6_COUNTS),
    },
  ],
  // 7: the unfilled ad requests of our zones, so publishers get a fill rate: a zone's no-bid (nothing of
  // ours or a partner's filled it, its fallback shown or not) is summed per hour as `unfilled`. Requests
  // refused as invalid traffic are not requests the zone could fill (the uncounted report has them), and
  // exchange traffic's no-bids (no zone of ours) stay out of the hourly view as before. The rows of
  // unfilled requests have no advertiser (advertiser_id 0): only the publishers' statistics read them.
  [
    { kind: 'column', table: 'stats_hourly', column: 'unfilled UInt64' },
    {
      kind: 'viewQuery',
      name: 'stats_hourly_mv',
      select: (table) => statsHourlySelect(table, STEP6_DIMS, STEP7_COUNTS, STEP7_WHERE),
    },
  ],
  // 8: how the traffic reached us (`integration`: widget, vast, openrtb, prebid, push; schemas/src/events.ts)
  // in the raw events and as a dimension of the hourly statistics, so publishers and we see what each
  // integration earns. The view is step 7's with the column. Rows summed before this step keep an empty one.
  [
    { kind: 'column', table: 'events', column: 'integration LowCardinality(String)' },
    {
      kind: 'keyColumns',
      table: 'stats_hourly',
      columns: ['integration LowCardinality(String)'],
      orderBy:
        '(advertiser_id, hour, campaign_id, creative_id, publisher_id, site_id, zone_id, country, device, os, browser, source, demand_partner_id, integration)',
    },
    {
      kind: 'viewQuery',
      name: 'stats_hourly_mv',
      select: (table) => statsHourlySelect(table, STEP8_DIMS, STEP7_COUNTS, STEP7_WHERE),
    },
  ],
  // 9: the advertiser's revenue, for ROI: an approved conversion's payout in cents (`payout_cents`, 0 on every
  // other event) in the raw events, summed per hour as `revenue_cents`. Conversions counted before this step
  // never carried their payout: their rows keep 0 revenue.
  [
    { kind: 'column', table: 'events', column: 'payout_cents Int64' },
    { kind: 'column', table: 'stats_hourly', column: 'revenue_cents Int64' },
    {
      kind: 'viewQuery',
      name: 'stats_hourly_mv',
      select: (table) => statsHourlySelect(table, STEP8_DIMS, STEP9_COUNTS, STEP7_WHERE),
    },
  ],
  // 10: the traffic estimate's inventory (docs/events-and-stats.md, "Traffic estimate"): per hour and
  // audience, the requests a new campaign could have bid on and the prices that won the sold ones, in 2 %
  // price buckets, so an estimate of a week reads summed rows rather than the raw events. Kept 8 days:
  // the estimate reads 7. The backfill fills it from the raw events of the last 8 days.
  [
    {
      // Keyed by audience first: most campaigns name their countries, and a query for some reads only theirs.
      kind: 'table',
      name: 'estimate_hourly',
      columns: `
      hour DateTime('UTC'),
      country LowCardinality(String),
      device LowCardinality(String),
      os LowCardinality(String),
      browser LowCardinality(String),
      zone_id UInt32,
      site_id UInt32,
      price_bucket UInt16,
      requests UInt64,
      sold UInt64,
      sold_micro_cents Int64
    `,
      engine: 'SummingMergeTree',
      layout: `
    ORDER BY (country, device, os, browser, hour, zone_id, site_id, price_bucket)
    TTL hour + INTERVAL 8 DAY`,
      dedupWindow: 10_000,
    },
    { kind: 'view', name: 'estimate_hourly_mv', to: 'estimate_hourly', select: (table) => estimateSelect(table) },
    {
      kind: 'backfill',
      into: 'estimate_hourly',
      columns: `hour, ${ESTIMATE_DIMS}, price_bucket, requests, sold, sold_micro_cents`,
      select: (table) => estimateSelect(table, 'ts >= now() - INTERVAL 8 DAY'),
    },
  ],
  // 11: the format of the ad as served (`ad_format`: banner, interstitial, direct_link, ...; schemas/src/events.ts
  // `format`; named apart from ClickHouse's FORMAT clause) in the raw events and as a dimension of the hourly
  // statistics, so advertisers, publishers and we see what each format brings. The view is step 9's with the
  // column. Rows summed before this step keep an empty one.
  [
    { kind: 'column', table: 'events', column: 'ad_format LowCardinality(String)' },
    {
      kind: 'keyColumns',
      table: 'stats_hourly',
      columns: ['ad_format LowCardinality(String)'],
      orderBy:
        '(advertiser_id, hour, campaign_id, creative_id, publisher_id, site_id, zone_id, country, device, os, browser, source, demand_partner_id, integration, ad_format)',
    },
    {
      kind: 'viewQuery',
      name: 'stats_hourly_mv',
      select: (table) => statsHourlySelect(table, STEP11_DIMS, STEP9_COUNTS, STEP7_WHERE),
    },
  ],
];

// No source: campaigns name their sources by zone and site, and an exchange's names would only add rows.
const ESTIMATE_DIMS = 'country, device, os, browser, zone_id, site_id';
/**
 * What the traffic estimate reads of each event (step 10). A request a campaign could have bid on is a bid of
 * ours on an exchange's impression (sold: at our price, what a new campaign must beat), an impression of ours
 * or a partner's on our zones (sold at its clearing price; a pixel-counted one without a price at its charge),
 * or a no-bid of ours (unsold), less the requests no campaign may take: invalid traffic, a zone or site not
 * serving, another currency, a private auction. Released in step 10: never edit it, add a step.
 */
function estimateSelect(table: (name: string) => string, also?: string): string {
  return `
    WITH if(type = 'impression' AND price_micro_cents = 0, intDiv(charge_nano, 10), price_micro_cents) AS price
    SELECT
      toStartOfHour(ts) AS hour, ${ESTIMATE_DIMS},
      if(type = 'nobid' OR price <= 0, 0, toUInt16(1 + floor(log(price) / log(1.02)))) AS price_bucket,
      count() AS requests,
      countIf(type != 'nobid') AS sold,
      sumIf(price, type != 'nobid') AS sold_micro_cents
    FROM ${table('events')}
    WHERE (type IN ('bid', 'impression', 'demand_impression') OR (type = 'nobid' AND reason NOT IN (${INVALID_TRAFFIC_SQL}, ${NOT_FOR_SALE_SQL})))${also ? ` AND ${also}` : ''}
    GROUP BY hour, ${ESTIMATE_DIMS}, price_bucket`;
}

/** No-bid reasons of requests no campaign could have taken, whatever it bid (step 9). */
const NOT_FOR_SALE_SQL = "'zone_not_serving', 'site_not_approved', 'currency', 'private_auction'";

/**
 * What our publishers' zones served that was not counted, by reason: ad requests refused as invalid
 * traffic (no-bid reasons of `INVALID_TRAFFIC_REASONS`), beacons and pixels not counted (too late,
 * another viewer's), and invalid clicks. Released in step 2: never edit it, add a step.
 */
function uncountedSelect(table: (name: string) => string): string {
  return `
    SELECT
      toStartOfHour(ts) AS hour, publisher_id, site_id, zone_id,
      multiIf(type = 'nobid', 'request', type = 'click', 'click', 'impression') AS of, reason, count() AS events
    FROM ${table('events')}
    WHERE publisher_id != 0 AND (
      (type = 'nobid' AND reason IN ('bot_traffic', 'address_flood', 'fingerprint_flood', 'foreign_origin'))
      OR (type = 'uncounted' AND reason != 'test')
      OR (type = 'click' AND invalid = 1))
    GROUP BY hour, publisher_id, site_id, zone_id, of, reason`;
}

/**
 * The hourly view's SELECT: grouped by the hour and `dims`, with one aggregate per entry of `counts`.
 * Each released step passes its own lists, so its text never changes (the snapshot test holds it).
 */
function statsHourlySelect(
  table: (name: string) => string,
  dims: string,
  counts: readonly string[],
  where = "type != 'nobid'",
): string {
  return `
    SELECT
      toStartOfHour(ts) AS hour, ${dims},
${counts.map((c) => `      ${c}`).join(',\n')}
    FROM ${table('events')}
    WHERE ${where}
    GROUP BY hour, ${dims}`;
}

/**
 * The hourly view's dimensions and counts as each step released them, named once: a step that changes
 * the view passes the previous lists with its own additions, and the snapshot test holds every step's text.
 */
const DIMS_V1 = 'advertiser_id, campaign_id, creative_id, publisher_id, site_id, zone_id, country, device';
const DIMS_V3 = `${DIMS_V1}, os, browser`;
const DIMS_V5 = `${DIMS_V3}, source`;
const STEP6_DIMS = `${DIMS_V5}, demand_partner_id`;
const STEP8_DIMS = `${STEP6_DIMS}, integration`;
const STEP11_DIMS = `${STEP8_DIMS}, ad_format`;
const COUNTS_V2 = [
  "countIf(type = 'bid') AS bids",
  "countIf(type IN ('win', 'impression')) AS impressions",
  "countIf(type = 'viewable') AS viewable_impressions",
  "countIf(type = 'click' AND invalid = 0) AS clicks",
  "countIf(type = 'click' AND invalid = 1) AS invalid_clicks",
  "countIf(type = 'conversion') AS conversions",
  "sumIf(charge_nano, type IN ('win', 'impression', 'click') AND invalid = 0) AS spent_nano",
] as const;
const COUNTS_V4 = [...COUNTS_V2, "countIf(type = 'fallback') AS fallbacks"] as const;
const STEP6_COUNTS = [
  "countIf(type = 'bid') AS bids",
  "countIf(type IN ('win', 'impression', 'demand_impression')) AS impressions",
  "countIf(type = 'viewable') AS viewable_impressions",
  "countIf(type = 'click' AND invalid = 0) AS clicks",
  "countIf(type = 'click' AND invalid = 1) AS invalid_clicks",
  "countIf(type = 'conversion') AS conversions",
  "sumIf(charge_nano, type IN ('win', 'impression', 'click', 'demand_impression') AND invalid = 0) AS spent_nano",
  "countIf(type = 'fallback') AS fallbacks",
] as const;
const STEP7_COUNTS = [...STEP6_COUNTS, "countIf(type = 'nobid') AS unfilled"] as const;
const STEP9_COUNTS = [...STEP7_COUNTS, "sumIf(payout_cents, type = 'conversion') AS revenue_cents"] as const;

/** The no-bid reasons of invalid traffic (`uncountedSelect`'s list, released in step 2), as SQL strings. */
const INVALID_TRAFFIC_SQL = "'bot_traffic', 'address_flood', 'fingerprint_flood', 'foreign_origin'";
/** Step 7's rows: every counted event, and the no-bids of our zones that are not invalid traffic (`unfilled`). */
const STEP7_WHERE = `type != 'nobid' OR (zone_id != 0 AND reason NOT IN (${INVALID_TRAFFIC_SQL}))`;

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
    const statements = [
      `CREATE TABLE IF NOT EXISTS ${db}.${name}${on} (${d.columns}) ENGINE = ${engine}${d.layout}${settings}`,
    ];
    if (!d.everywhere) {
      const key = d.shardingKey ? `, ${d.shardingKey}` : '';
      statements.push(
        `CREATE TABLE IF NOT EXISTS ${db}.${d.name}${on} AS ${db}.${name} ENGINE = Distributed(${cluster}, ${db}, ${name}${key})`,
      );
    }
    return statements;
  };
  const view = (d: ViewDef) =>
    `CREATE MATERIALIZED VIEW IF NOT EXISTS ${db}.${d.name}${on} TO ${local(d.to)} AS${d.select(local)}`;
  const column = (d: ColumnDef): string[] => {
    const add = (name: string) => `ALTER TABLE ${db}.${name}${on} ADD COLUMN IF NOT EXISTS ${d.column}`;
    // The stored table first: a Distributed table may name only columns its shards have.
    return cluster && sharded.has(d.table) ? [add(stored(d.table)), add(d.table)] : [add(d.table)];
  };
  const keyColumns = (d: KeyColumnsDef): string[] => {
    const add = d.columns.map((c) => `ADD COLUMN IF NOT EXISTS ${c}`).join(', ');
    const keyed = `ALTER TABLE ${db}.${stored(d.table)}${on} ${add}, MODIFY ORDER BY ${d.orderBy}`;
    // The stored table first, as for a column: the Distributed table may name only columns its shards have.
    return cluster && sharded.has(d.table) ? [keyed, `ALTER TABLE ${db}.${d.table}${on} ${add}`] : [keyed];
  };
  const statements = (d: Def, version: number, n: number): string[] => {
    switch (d.kind) {
      case 'table':
        return table(d);
      case 'view':
        return [view(d)];
      case 'column':
        return column(d);
      case 'keyColumns':
        return keyColumns(d);
      case 'viewQuery':
        return [`ALTER TABLE ${db}.${d.name}${on} MODIFY QUERY${d.select(local)}`];
      case 'backfill':
        // The token makes a step that failed after its backfill, and runs again, insert nothing twice.
        return cluster
          ? []
          : [
              `INSERT INTO ${db}.${d.into} (${d.columns}) SETTINGS insert_deduplication_token = 'migration-${version}-${n}'${d.select(local)}`,
            ];
    }
  };

  return {
    setup: [`CREATE DATABASE IF NOT EXISTS ${db}${on}`, ...table(schemaMigrations)],
    steps: defs.map((step, i) => step.flatMap((d, n) => statements(d, i + 1, n))),
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
