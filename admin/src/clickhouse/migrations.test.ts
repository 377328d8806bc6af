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
    insert: ({ table, values }: { table: string; values: unknown[] }) => Promise.resolve(void sent.push(`INSERT INTO ${table} ${JSON.stringify(values)}`)),
  };
  return { client: client as unknown as ClickHouseClient, sent };
}

const single = migrationSteps({ database: 'adnet', eventTtlDays: 90 });
const cluster = migrationSteps({ database: 'adnet', eventTtlDays: 90, cluster: 'ads' });
const clusterDdl = [...cluster.setup, ...cluster.steps.flat()];
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
  it('sends exactly the statements released as version 1', async () => {
    // The snapshot was taken from migrate() before clusters existed: installs that recorded version 1 ran these.
    const { client, sent } = recordingClient();
    expect(await migrate(client, { database: 'adnet', eventTtlDays: 90 })).toEqual([1]);
    expect(sent).toMatchSnapshot();
    expect(sent.filter((s) => s.startsWith('CREATE'))).toEqual([...single.setup, ...single.steps.flat()]);
  });

  it('has nothing of the cluster form', () => {
    for (const s of [...single.setup, ...single.steps.flat()]) expect(s).not.toMatch(/ON CLUSTER|Replicated|Distributed|_local/);
  });

  it('runs only the steps not yet recorded', async () => {
    const { client, sent } = recordingClient([1]);
    expect(await migrate(client, { database: 'adnet', eventTtlDays: 90 })).toEqual([]);
    expect(sent).toEqual([...single.setup, 'SELECT version FROM adnet.schema_migrations']);
  });

  it('refuses names that are not plain identifiers', () => {
    expect(() => migrationSteps({ database: 'adnet; DROP', eventTtlDays: 90 })).toThrow(/bad identifier/);
    expect(() => migrationSteps({ database: 'adnet', eventTtlDays: 90, cluster: 'a b' })).toThrow(/bad identifier/);
  });
});

describe('migrate on a ClickHouse cluster', () => {
  it('has the same steps as a single server, each statement ON CLUSTER', () => {
    expect(cluster.steps).toHaveLength(single.steps.length);
    for (const s of clusterDdl) expect(s).toMatch(/^CREATE (DATABASE|TABLE|MATERIALIZED VIEW) IF NOT EXISTS [a-z_.]+ ON CLUSTER ads( |$)/);
    expect(cluster.setup[0]).toBe('CREATE DATABASE IF NOT EXISTS adnet ON CLUSTER ads');
  });

  it('stores rows in replicated tables on each shard, deduplicating retried inserts', () => {
    const events = creating(clusterDdl, 'adnet.events_local');
    const hourly = creating(clusterDdl, 'adnet.stats_hourly_local');
    expect(events).toContain("ENGINE = ReplicatedMergeTree('/clickhouse/tables/{shard}/{database}/events_local', '{replica}')");
    expect(hourly).toContain("ENGINE = ReplicatedSummingMergeTree('/clickhouse/tables/{shard}/{database}/stats_hourly_local', '{replica}')");
    for (const s of [events, hourly]) {
      expect(s).toContain('SETTINGS replicated_deduplication_window = 10000');
      expect(s).not.toContain('non_replicated_deduplication_window');
    }
    expect(events).toContain('TTL toDateTime(ts) + INTERVAL 90 DAY');
    // One source: the same columns and layout as on one server.
    expect(columnsOf(events)).toBe(columnsOf(creating(single.steps.flat(), 'adnet.events')));
    expect(columnsOf(hourly)).toBe(columnsOf(creating(single.steps.flat(), 'adnet.stats_hourly')));
    expect(layoutOf(events)).toBe(layoutOf(creating(single.steps.flat(), 'adnet.events')).replace('non_replicated', 'replicated'));
    expect(layoutOf(hourly)).toBe(layoutOf(creating(single.steps.flat(), 'adnet.stats_hourly')).replace('non_replicated', 'replicated'));
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
    expect(at('adnet.stats_hourly_mv')).toBeGreaterThan(Math.max(at('adnet.events_local'), at('adnet.stats_hourly_local')));
  });

  it('runs the view on each shard from the local events into the local hourly table', () => {
    const view = creating(clusterDdl, 'adnet.stats_hourly_mv');
    expect(view).toMatch(/^CREATE MATERIALIZED VIEW IF NOT EXISTS adnet\.stats_hourly_mv ON CLUSTER ads TO adnet\.stats_hourly_local AS\n/);
    expect(view).toContain('FROM adnet.events_local\n');
    expect(view.replace('ON CLUSTER ads ', '').replaceAll('_local', '')).toBe(creating(single.steps.flat(), 'adnet.stats_hourly_mv'));
  });

  it('records versions in one replica set spanning every node, whichever node the admin reaches', () => {
    expect(cluster.setup[1]).toBe(
      "CREATE TABLE IF NOT EXISTS adnet.schema_migrations ON CLUSTER ads (version UInt32, applied_at DateTime DEFAULT now()) ENGINE = ReplicatedMergeTree('/clickhouse/tables/all/{database}/schema_migrations', '{shard}-{replica}') ORDER BY version",
    );
    expect(clusterDdl.filter((s) => s.includes('schema_migrations'))).toHaveLength(1);
  });

  it('sends the cluster form through migrate', async () => {
    const { client, sent } = recordingClient();
    expect(await migrate(client, { database: 'adnet', eventTtlDays: 90, cluster: 'ads' })).toEqual([1]);
    expect(sent).toEqual([
      ...cluster.setup,
      'SELECT version FROM adnet.schema_migrations',
      ...(cluster.steps[0] ?? []),
      'INSERT INTO adnet.schema_migrations [{"version":1}]',
    ]);
    expect(sent).toMatchSnapshot();
  });
});
