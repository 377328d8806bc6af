import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { migrationSteps } from '../src/clickhouse/migrations.ts';
import { openClickHouse } from '../src/clickhouse/open.ts';

// No ClickHouse cluster runs here and chDB cannot run ON CLUSTER: this only has ClickHouse's own
// parser read the cluster form (formatQuery parses, never executes). What the statements do on a
// cluster is checked as text in src/clickhouse/migrations.test.ts.
const dir = mkdtempSync(join(tmpdir(), 'adnet-ch-ddl-'));
const clickhouse = await openClickHouse(undefined, dir);
afterAll(async () => {
  await clickhouse.close();
  rmSync(dir, { recursive: true, force: true });
});

it('writes cluster DDL that ClickHouse parses, ON CLUSTER and engines intact', async () => {
  const plan = migrationSteps({ database: 'adnet', eventTtlDays: 90, cluster: 'ads' });
  let engines = 0;
  for (const q of [...plan.setup, ...plan.steps.flat()]) {
    const [row] = await (
      await clickhouse.query({
        query: 'SELECT formatQuery({q:String}) AS f',
        query_params: { q },
        format: 'JSONEachRow',
      })
    ).json<{ f: string }>();
    const formatted = row?.f ?? '';
    expect(formatted).toContain(' ON CLUSTER ads');
    for (const engine of q.match(/ENGINE = \w+\([^)]*\)/g) ?? []) {
      expect(formatted).toContain(engine);
      engines++;
    }
  }
  expect(engines).toBe(9); // schema_migrations, four replicated tables, four Distributed tables
  await expect(
    clickhouse.query({ query: 'SELECT formatQuery({q:String})', query_params: { q: 'CREATE TABLE t ON CLUSTER (' } }),
  ).rejects.toThrow(/Syntax error/i);
});
