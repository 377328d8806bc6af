import type { ClickHouseClient } from '@clickhouse/client';
import { describe, expect, it } from 'vitest';
import { migrate, migrationSteps } from './migrations.ts';

// The cluster form is checked here only, as text: no ClickHouse cluster runs in this repository's tests
// (chDB cannot run ON CLUSTER). The single form also runs for real on chDB in the integration tests.

/** Records what `migrate` sends; `applied` are the versions schema_migrations already holds. */
function recordingClient(applied: number[] = []) {
  const sent: string[] = [];
  const client = {
    command: ({ query }: { query: string }) => Promise.resolve(void sent.push(query)),
    query: ({ query }: { query: string }) => {
      sent.push(query);
      return Promise.resolve({ json: () => Promise.resolve(applied.map((version) => ({ version: String(version) }))) });
    },
    insert: ({ table, values }: { table: string; values: unknown[] }) =>
      Promise.resolve(void sent.push(`INSERT INTO ${table} ${JSON.stringify(values)}`)),
  };
  return { client: client as unknown as ClickHouseClient, sent };
}

const single = migrationSteps({ database: 'adnet', eventTtlDays: 90 });
const cluster = migrationSteps({ database: 'adnet', eventTtlDays: 90, cluster: 'ads' });
const clusterDdl = [...cluster.setup, ...cluster.steps.flat()];
/** Every version, in order. */
const versions = single.steps.map((_, i) => i + 1);
/** The one statement creating `object` (database-qualified name). */
const creating = (statements: string[], object: string) => {
  const found = statements.filter((s) => new RegExp(`^CREATE [A-Z ]+IF NOT EXISTS ${object}[ (]`).test(s));
  expect(found, object).toHaveLength(1);
  return found[0] ?? '';
};
const columnsOf = (statement: string) => statement.slice(statement.indexOf('('), statement.indexOf(') ENGINE') + 1);
/** ORDER BY, TTL, SETTINGS: what follows the engine's line. */
const layoutOf = (statement: string) => statement.slice(statement.indexOf('\n', statement.indexOf(') ENGINE')));

describe('migrate on a single server (embedded chDB, one ClickHouse)', () => {
  it('sends exactly the statements released, version by version', async () => {
    // The snapshot grows by appending: version 1's part was taken from migrate() before clusters existed,
    // and installs that recorded a version ran exactly its statements.
    const { client, sent } = recordingClient();
    expect(await migrate(client, { database: 'adnet', eventTtlDays: 90 })).toEqual(versions);
    expect(sent).toMatchSnapshot();
    expect(sent.filter((s) => !s.startsWith('SELECT version') && !s.includes('schema_migrations ['))).toEqual([
      ...single.setup,
      ...single.steps.flat(),
    ]);
  });

  it('adds viewable impressions to the hourly table and its view, and fills in their past once', () => {
    const [column, query, backfill] = single.steps[1] ?? [];
    expect(column).toBe('ALTER TABLE adnet.stats_hourly ADD COLUMN IF NOT EXISTS viewable_impressions UInt64');
    // The view's new query is the released one plus the new count.
    const released = creating(single.steps.flat(), 'adnet.stats_hourly_mv').replace(
      /^CREATE MATERIALIZED VIEW IF NOT EXISTS adnet.stats_hourly_mv TO adnet.stats_hourly AS/,
      '',
    );
    expect(query).toBe(
      `ALTER TABLE adnet.stats_hourly_mv MODIFY QUERY${released.replace('AS impressions,\n', "AS impressions,\n      countIf(type = 'viewable') AS viewable_impressions,\n")}`,
    );
    expect(backfill).toMatch(
      /^INSERT INTO adnet\.stats_hourly \(.*viewable_impressions\) SETTINGS insert_deduplication_token = 'migration-2-2'\n\s+SELECT .* FROM adnet\.events\s+WHERE type = 'viewable'/s,
    );
  });

  it('adds the OS and browser to the raw events, to the hourly key in one ALTER, and to its view', () => {
    const [os, browser, key, query, ...rest] = single.steps[2] ?? [];
    expect([os, browser]).toEqual([
      'ALTER TABLE adnet.events ADD COLUMN IF NOT EXISTS os LowCardinality(String)',
      'ALTER TABLE adnet.events ADD COLUMN IF NOT EXISTS browser LowCardinality(String)',
    ]);
    // A SummingMergeTree sums rows of one key: a new dimension must join the key, and may only in the ALTER that adds it.
    const released = creating(single.steps.flat(), 'adnet.stats_hourly');
    const oldKey = /ORDER BY (\([^)]+\))/.exec(released)?.[1] ?? '';
    expect(key).toBe(
      `ALTER TABLE adnet.stats_hourly ADD COLUMN IF NOT EXISTS os LowCardinality(String), ADD COLUMN IF NOT EXISTS browser LowCardinality(String), MODIFY ORDER BY ${oldKey.replace(')', ', os, browser)')}`,
    );
    // The view's query is step 2's with the two dimensions selected and grouped by.
    const before = single.steps[1]?.[1] ?? '';
    expect(query).toBe(
      before
        .replace('country, device,\n', 'country, device, os, browser,\n')
        .replace(/country, device$/, 'country, device, os, browser'),
    );
    expect(query).toMatch(/GROUP BY hour, .*, country, device, os, browser$/);
    expect(rest).toEqual([]);
  });

  it("adds fallbacks to the hourly table and to its view, whose query is the previous step's plus the count", () => {
    const at = single.steps.findIndex((step) => step[0]?.endsWith('fallbacks UInt64'));
    const [column, query, ...rest] = single.steps[at] ?? [];
    expect(column).toBe('ALTER TABLE adnet.stats_hourly ADD COLUMN IF NOT EXISTS fallbacks UInt64');
    // Whatever a step before it did to the view (a new dimension), this one must keep.
    const before = single.steps
      .slice(0, at)
      .flat()
      .filter((s) => s.startsWith('ALTER TABLE adnet.stats_hourly_mv MODIFY QUERY'))
      .at(-1);
    expect(query).toBe(
      before?.replace('AS spent_nano\n', "AS spent_nano,\n      countIf(type = 'fallback') AS fallbacks\n"),
    );
    expect(rest).toEqual([]);
  });

  it('adds the source to the raw events, to the hourly key in one ALTER, and to its view, keeping every column of step 4', () => {
    const [events, key, query, ...rest] = single.steps[4] ?? [];
    expect(events).toBe('ALTER TABLE adnet.events ADD COLUMN IF NOT EXISTS source LowCardinality(String)');
    expect(key).toBe(
      'ALTER TABLE adnet.stats_hourly ADD COLUMN IF NOT EXISTS source LowCardinality(String), MODIFY ORDER BY (advertiser_id, hour, campaign_id, creative_id, publisher_id, site_id, zone_id, country, device, os, browser, source)',
    );
    // Step 4's query (fallbacks included) with the source selected and grouped by.
    const before = single.steps[3]?.[1] ?? '';
    expect(query).toBe(
      before.replace('os, browser,\n', 'os, browser, source,\n').replace(/os, browser$/, 'os, browser, source'),
    );
    expect(query).toContain("countIf(type = 'fallback') AS fallbacks");
    expect(query).toMatch(/GROUP BY hour, .*, os, browser, source$/);
    expect(rest).toEqual([]);
  });

  it('adds the demand partner to the raw events, to the hourly key in one ALTER, and to its view, counting its impressions and price', () => {
    const [events, key, query, ...rest] = single.steps[5] ?? [];
    expect(events).toBe('ALTER TABLE adnet.events ADD COLUMN IF NOT EXISTS demand_partner_id UInt32');
    expect(key).toBe(
      'ALTER TABLE adnet.stats_hourly ADD COLUMN IF NOT EXISTS demand_partner_id UInt32, MODIFY ORDER BY (advertiser_id, hour, campaign_id, creative_id, publisher_id, site_id, zone_id, country, device, os, browser, source, demand_partner_id)',
    );
    // Step 5's query (source and fallbacks included) with the partner grouped by and its impressions counted and priced.
    const before = single.steps[4]?.[2] ?? '';
    expect(query).toBe(
      before
        .replace('browser, source,\n', 'browser, source, demand_partner_id,\n')
        .replace(/browser, source$/, 'browser, source, demand_partner_id')
        .replace(
          "type IN ('win', 'impression')) AS impressions",
          "type IN ('win', 'impression', 'demand_impression')) AS impressions",
        )
        .replace(
          "type IN ('win', 'impression', 'click') AND",
          "type IN ('win', 'impression', 'click', 'demand_impression') AND",
        ),
    );
    expect(query).toMatch(/GROUP BY hour, .*, source, demand_partner_id$/);
    expect(rest).toEqual([]);
  });

  it('has nothing of the cluster form', () => {
    for (const s of [...single.setup, ...single.steps.flat()])
      expect(s).not.toMatch(/ON CLUSTER|Replicated|Distributed|_local/);
  });

  it('runs only the steps not yet recorded', async () => {
    const done = recordingClient(versions);
    expect(await migrate(done.client, { database: 'adnet', eventTtlDays: 90 })).toEqual([]);
    expect(done.sent).toEqual([...single.setup, 'SELECT version FROM adnet.schema_migrations']);
    const last = versions.length;
    const behind = recordingClient(versions.slice(0, -1));
    expect(await migrate(behind.client, { database: 'adnet', eventTtlDays: 90 })).toEqual([last]);
    expect(behind.sent).toEqual([
      ...single.setup,
      'SELECT version FROM adnet.schema_migrations',
      ...(single.steps[last - 1] ?? []),
      `INSERT INTO adnet.schema_migrations [{"version":${last}}]`,
    ]);
  });

  it('refuses names that are not plain identifiers', () => {
    expect(() => migrationSteps({ database: 'adnet; DROP', eventTtlDays: 90 })).toThrow(/bad identifier/);
    expect(() => migrationSteps({ database: 'adnet', eventTtlDays: 90, cluster: 'a b' })).toThrow(/bad identifier/);
  });
});

describe('migrate on a ClickHouse cluster', () => {
  it('has the same steps as a single server, each statement ON CLUSTER', () => {
    expect(cluster.steps).toHaveLength(single.steps.length);
    for (const s of clusterDdl)
      expect(s).toMatch(
        /^(CREATE (DATABASE|TABLE|MATERIALIZED VIEW) IF NOT EXISTS|ALTER TABLE) [a-z_.]+ ON CLUSTER ads( |$)/,
      );
    expect(cluster.setup[0]).toBe('CREATE DATABASE IF NOT EXISTS adnet ON CLUSTER ads');
  });

  it('stores rows in replicated tables on each shard, deduplicating retried inserts', () => {
    const events = creating(clusterDdl, 'adnet.events_local');
    const hourly = creating(clusterDdl, 'adnet.stats_hourly_local');
    expect(events).toContain(
      "ENGINE = ReplicatedMergeTree('/clickhouse/tables/{shard}/{database}/events_local', '{replica}')",
    );
    expect(hourly).toContain(
      "ENGINE = ReplicatedSummingMergeTree('/clickhouse/tables/{shard}/{database}/stats_hourly_local', '{replica}')",
    );
    for (const s of [events, hourly]) {
      expect(s).toContain('SETTINGS replicated_deduplication_window = 10000');
      expect(s).not.toContain('non_replicated_deduplication_window');
    }
    expect(events).toContain('TTL toDateTime(ts) + INTERVAL 90 DAY');
    // One source: the same columns and layout as on one server.
    expect(columnsOf(events)).toBe(columnsOf(creating(single.steps.flat(), 'adnet.events')));
    expect(columnsOf(hourly)).toBe(columnsOf(creating(single.steps.flat(), 'adnet.stats_hourly')));
    expect(layoutOf(events)).toBe(
      layoutOf(creating(single.steps.flat(), 'adnet.events')).replace('non_replicated', 'replicated'),
    );
    expect(layoutOf(hourly)).toBe(
      layoutOf(creating(single.steps.flat(), 'adnet.stats_hourly')).replace('non_replicated', 'replicated'),
    );
  });

  it('keeps the names the ingester and the stats queries use, as Distributed tables sharded by a hash of the row', () => {
    expect(creating(clusterDdl, 'adnet.events')).toBe(
      'CREATE TABLE IF NOT EXISTS adnet.events ON CLUSTER ads AS adnet.events_local ENGINE = Distributed(ads, adnet, events_local, cityHash64(id))',
    );
    // Written by the view only, shard by shard: no sharding key, so an insert through it fails on several shards.
    expect(creating(clusterDdl, 'adnet.stats_hourly')).toBe(
      'CREATE TABLE IF NOT EXISTS adnet.stats_hourly ON CLUSTER ads AS adnet.stats_hourly_local ENGINE = Distributed(ads, adnet, stats_hourly_local)',
    );
    for (const s of clusterDdl) expect(s).not.toMatch(/rand/i);
  });

  it('creates each local table before its Distributed table, and the view after both', () => {
    const at = (object: string) => cluster.steps[0]?.indexOf(creating(clusterDdl, object)) ?? -1;
    expect(at('adnet.events_local')).toBeLessThan(at('adnet.events'));
    expect(at('adnet.stats_hourly_local')).toBeLessThan(at('adnet.stats_hourly'));
    expect(at('adnet.stats_hourly_mv')).toBeGreaterThan(
      Math.max(at('adnet.events_local'), at('adnet.stats_hourly_local')),
    );
  });

  it('runs the view on each shard from the local events into the local hourly table', () => {
    const view = creating(clusterDdl, 'adnet.stats_hourly_mv');
    expect(view).toMatch(
      /^CREATE MATERIALIZED VIEW IF NOT EXISTS adnet\.stats_hourly_mv ON CLUSTER ads TO adnet\.stats_hourly_local AS\n/,
    );
    expect(view).toContain('FROM adnet.events_local\n');
    expect(view.replace('ON CLUSTER ads ', '').replaceAll('_local', '')).toBe(
      creating(single.steps.flat(), 'adnet.stats_hourly_mv'),
    );
  });

  it('records versions in one replica set spanning every node, whichever node the admin reaches', () => {
    expect(cluster.setup[1]).toBe(
      "CREATE TABLE IF NOT EXISTS adnet.schema_migrations ON CLUSTER ads (version UInt32, applied_at DateTime DEFAULT now()) ENGINE = ReplicatedMergeTree('/clickhouse/tables/all/{database}/schema_migrations', '{shard}-{replica}') ORDER BY version",
    );
    expect(clusterDdl.filter((s) => s.includes('schema_migrations'))).toHaveLength(1);
  });

  it("adds a column to each shard's table before the Distributed one, and backfills nothing (no INSERT runs ON CLUSTER)", () => {
    const step = cluster.steps[1] ?? [];
    expect(step.slice(0, 3)).toEqual([
      'ALTER TABLE adnet.stats_hourly_local ON CLUSTER ads ADD COLUMN IF NOT EXISTS viewable_impressions UInt64',
      'ALTER TABLE adnet.stats_hourly ON CLUSTER ads ADD COLUMN IF NOT EXISTS viewable_impressions UInt64',
      expect.stringMatching(
        /^ALTER TABLE adnet\.stats_hourly_mv ON CLUSTER ads MODIFY QUERY\n[^]*FROM adnet\.events_local\n/,
      ),
    ]);
    expect(step.some((s) => s.startsWith('INSERT'))).toBe(false);
    expect(creating(clusterDdl, 'adnet.uncounted_hourly_mv')).toContain('TO adnet.uncounted_hourly_local AS');
  });

  it("changes the hourly key on each shard's table and adds the columns to the Distributed one after it", () => {
    const step = cluster.steps[2] ?? [];
    expect(step).toEqual([
      'ALTER TABLE adnet.events_local ON CLUSTER ads ADD COLUMN IF NOT EXISTS os LowCardinality(String)',
      'ALTER TABLE adnet.events ON CLUSTER ads ADD COLUMN IF NOT EXISTS os LowCardinality(String)',
      'ALTER TABLE adnet.events_local ON CLUSTER ads ADD COLUMN IF NOT EXISTS browser LowCardinality(String)',
      'ALTER TABLE adnet.events ON CLUSTER ads ADD COLUMN IF NOT EXISTS browser LowCardinality(String)',
      (single.steps[2]?.[2] ?? '').replace('adnet.stats_hourly ', 'adnet.stats_hourly_local ON CLUSTER ads '),
      'ALTER TABLE adnet.stats_hourly ON CLUSTER ads ADD COLUMN IF NOT EXISTS os LowCardinality(String), ADD COLUMN IF NOT EXISTS browser LowCardinality(String)',
      (single.steps[2]?.[3] ?? '')
        .replace('adnet.stats_hourly_mv ', 'adnet.stats_hourly_mv ON CLUSTER ads ')
        .replace('FROM adnet.events\n', 'FROM adnet.events_local\n'),
    ]);
  });

  it('sends the cluster form through migrate', async () => {
    const { client, sent } = recordingClient();
    expect(await migrate(client, { database: 'adnet', eventTtlDays: 90, cluster: 'ads' })).toEqual(versions);
    expect(sent).toEqual([
      ...cluster.setup,
      'SELECT version FROM adnet.schema_migrations',
      ...cluster.steps.flatMap((step, i) => [...step, `INSERT INTO adnet.schema_migrations [{"version":${i + 1}}]`]),
    ]);
    expect(sent).toMatchSnapshot();
  });
});
