// Where embedded chDB's time goes when the ingester inserts a batch: the same rows (the bench's event mix,
// `BENCH_ROWS`, default 50 000) inserted in several forms, rounds alternated, CPU of this process (chDB's
// threads included) per row. Forms: the ingester's former path (@clickhouse/client, JSONCompactEachRow), the
// same text handed to chDB as bytes, TabSeparated, RowBinary from a file (with some settings), and the
// ingester's inserts as they are now; into the events table with its views (as migrated), without them, and
// into a Null table (parsing alone). Background merges are stopped while
// inserting and timed apart afterwards. `npx tsx bench/src/chdb-insert-cost.ts`
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { migrate } from '@adnet/admin/migrations';
import { EVENT_COLUMNS, EVENT_ROW_BINARY_STRUCTURE, eventsRowBinary, toRowValues } from '@adnet/admin/event-rows';
import { EventInserter } from '@adnet/admin/event-insert';
import { createClient } from '@clickhouse/client';
import { createChdbConnection } from 'chdb/connection';
import type { Session } from 'chdb';
import type { EngineEvent } from '@adnet/schemas/events';
import { benchEvent } from './pipeline-generator.ts';

const ROWS = Number(process.env.BENCH_ROWS ?? 50_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const ONLY = process.env.BENCH_VARIANTS?.split(',');

const dir = mkdtempSync(join(tmpdir(), 'chdb-insert-cost-'));
type ClientConnection = NonNullable<Parameters<typeof createClient>[0]>['connection'];
const connection = createChdbConnection({ path: join(dir, 'ch') });
const session = (connection as unknown as { chdb: { rawInsert: Session['insert']; queryAsync: Session['queryAsync'] } })
  .chdb;
const client = createClient({ connection: connection as unknown as ClientConnection });
await migrate(client, { database: 'adnet', eventTtlDays: 3650 });
await client.command({ query: 'CREATE DATABASE IF NOT EXISTS bare' });
await client.command({ query: 'CREATE TABLE IF NOT EXISTS bare.events AS adnet.events' });
await client.command({ query: 'CREATE DATABASE IF NOT EXISTS nul' });
await client.command({ query: 'CREATE TABLE IF NOT EXISTS nul.events AS adnet.events ENGINE = Null' });
await client.command({ query: 'SYSTEM STOP MERGES' });

const columns = [...EVENT_COLUMNS];
const structure = EVENT_ROW_BINARY_STRUCTURE.replaceAll("'", "\\'");

let round = 0;
/** The batch of a round: fresh ids, so no insert is a duplicate of another. */
function events(r: number) {
  const now = Date.now();
  return Array.from({ length: ROWS }, (_, i) => benchEvent(`r${r}e${i}`, i, now - (i % 86_400) * 1000));
}

type Variant = (db: string, token: string, ev: EngineEvent[], r: number) => Promise<void>;
const rowsOf = (ev: EngineEvent[]) => ev.map(toRowValues);
const jsonText = (ev: EngineEvent[]) =>
  rowsOf(ev)
    .map((row) => JSON.stringify(row))
    .join('\n') + '\n';
const tsvText = (ev: EngineEvent[]) =>
  rowsOf(ev)
    .map((row) =>
      row
        .map((v) =>
          typeof v === 'string'
            ? v.replace(/[\\\t\n]/g, (c) => (c === '\t' ? '\\t' : c === '\n' ? '\\n' : '\\\\'))
            : String(v),
        )
        .join('\t'),
    )
    .join('\n') + '\n';
/** The settings every insert had before this measure (the token, deduplicated in the views too). */
const settings = (token: string): Record<string, string | number> => ({
  insert_deduplication_token: token,
  deduplicate_blocks_in_dependent_materialized_views: 1,
});
/** The ingester's own insert (admin/src/ingest/event-insert.ts), either way. */
const ingester = (stagingDir?: string): Variant => {
  const inserters = new Map<string, EventInserter>();
  return async (db, token, ev) => {
    const inserter =
      inserters.get(db) ??
      new EventInserter({
        clickhouse: client,
        database: db,
        distributed: false,
        ...(stagingDir ? { stagingDir } : {}),
      });
    inserters.set(db, inserter);
    await inserter.insert(inserter.rows(ev), token);
  };
};

/** RowBinary written to a file, inserted by INSERT ... SELECT FROM file() with the token (and `extra`) in its SETTINGS. */
function fileRowBinary(extra: Record<string, number>): Variant {
  return async (db, token, ev, r) => {
    const path = join(dir, `batch-${r}.bin`);
    writeFileSync(path, eventsRowBinary(ev));
    const s = Object.entries({ ...settings(token), ...extra })
      .map(([k, v]) => `${k} = '${String(v)}'`)
      .join(', ');
    await session.queryAsync(
      `INSERT INTO ${db}.events (${columns.join(', ')}) SETTINGS ${s} SELECT * FROM file('${path}', 'RowBinary', '${structure}')`,
    );
    rmSync(path);
  };
}

const variants: Record<string, Variant> = {
  /** What the ingester did before: rows through @clickhouse/client (its JSON encoding, the body joined into the SQL text). */
  client_json: async (db, token, ev) => {
    const values = rowsOf(ev);
    await client.insert({
      table: `${db}.events`,
      columns: [...EVENT_COLUMNS],
      values,
      format: 'JSONCompactEachRow',
      clickhouse_settings: settings(token),
    });
  },
  raw_json: async (db, token, ev) => {
    await session.rawInsert({
      table: `${db}.events`,
      columns,
      values: Buffer.from(jsonText(ev)),
      format: 'JSONCompactEachRow',
      settings: settings(token),
    });
  },
  raw_tsv: async (db, token, ev) => {
    await session.rawInsert({
      table: `${db}.events`,
      columns,
      values: Buffer.from(tsvText(ev)),
      format: 'TabSeparated',
      settings: settings(token),
    });
  },
  file_rowbinary: fileRowBinary({}),
  'file_rowbinary optimize_on_insert=0': fileRowBinary({ optimize_on_insert: 0 }),
  'file_rowbinary parallel_view_processing=1': fileRowBinary({ parallel_view_processing: 1 }),
  'file_rowbinary max_insert_threads=2': fileRowBinary({ max_insert_threads: 2 }),
  'ingester, body (server)': ingester(),
  'ingester, file (chDB)': ingester(join(dir, 'staging')),
};

const targets = { views: 'adnet', no_views: 'bare', null: 'nul' } as const;
const results: Record<string, number[]> = {};
const wall: Record<string, number[]> = {};
for (let r = 0; r < ROUNDS; r++) {
  for (const [vn, v] of Object.entries(variants)) {
    for (const [tn, db] of Object.entries(targets)) {
      const key = `${vn} -> ${tn}`;
      if (ONLY && !ONLY.some((o) => key.includes(o))) continue;
      const rr = round++;
      const ev = events(rr);
      const c0 = process.cpuUsage();
      const t0 = performance.now();
      await v(db, `tok-${rr}`, ev, rr);
      const c = process.cpuUsage(c0);
      (results[key] ??= []).push((c.user + c.system) / ROWS);
      (wall[key] ??= []).push(((performance.now() - t0) * 1000) / ROWS);
    }
  }
}

// JavaScript alone: building the rows and encoding them.
const js: Record<string, number[]> = {};
for (let r = 0; r < ROUNDS; r++) {
  const ev = events(1_000_000 + r);
  const time = (name: string, f: () => unknown) => {
    const c0 = process.cpuUsage();
    f();
    const c = process.cpuUsage(c0);
    (js[name] ??= []).push((c.user + c.system) / ROWS);
  };
  time('rows (toRowValues)', () => ev.map(toRowValues));
  const rows = ev.map(toRowValues);
  time('JSON text of rows', () => rows.map((row) => JSON.stringify(row)).join('\n'));
  time('RowBinary of rows', () => eventsRowBinary(ev));
}

// Merges: what the inserts above left to merge, timed with nothing else running.
const parts = async () =>
  Number(
    (
      (
        await (
          await client.query({ query: 'SELECT count() AS n FROM system.parts WHERE active', format: 'JSONEachRow' })
        ).json<{ n: string }>()
      )[0] ?? { n: 0 }
    ).n,
  );
const partsBefore = await parts();
const m0 = process.cpuUsage();
const mt0 = performance.now();
await client.command({ query: 'SYSTEM START MERGES' });
for (let i = 0; i < 40; i++) {
  const busy = Number(
    (
      (
        await (
          await client.query({ query: 'SELECT count() AS n FROM system.merges', format: 'JSONEachRow' })
        ).json<{ n: string }>()
      )[0] ?? { n: 0 }
    ).n,
  );
  if (busy === 0 && i > 4) break;
  await new Promise((res) => setTimeout(res, 250));
}
const m = process.cpuUsage(m0);
const insertedRows = round * ROWS;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
const f = (x: number) => x.toFixed(2);
const out = [
  `chDB insert cost, ${ROWS} rows per insert, ${ROUNDS} rounds alternated (median; CPU of this process, chDB's threads included; us per row)`,
  '',
  '| insert | CPU us/row | wall us/row | all rounds (CPU) |',
  '|---|---|---|---|',
  ...Object.entries(results).map(
    ([k, xs]) => `| ${k} | ${f(median(xs))} | ${f(median(wall[k] ?? []))} | ${xs.map(f).join(', ')} |`,
  ),
  '',
  '| JavaScript | CPU us/row | all rounds |',
  '|---|---|---|',
  ...Object.entries(js).map(([k, xs]) => `| ${k} | ${f(median(xs))} | ${xs.map(f).join(', ')} |`),
  '',
  `Merges afterwards: ${partsBefore} -> ${await parts()} active parts, ${((m.user + m.system) / 1000).toFixed(0)} ms CPU in ${(performance.now() - mt0).toFixed(0)} ms, ${f((m.user + m.system) / insertedRows)} us per row inserted (all tables).`,
].join('\n');
process.stdout.write(out + '\n');
await client.close();
rmSync(dir, { recursive: true, force: true });
process.exit(0);
