import type { ClickHouseClient, ClickHouseSettings } from '@clickhouse/client';
import { mkdirSync, readdirSync, rmSync } from 'node:fs';
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { EngineEvent } from '@adnet/schemas/events';
import { EVENT_COLUMNS, EVENT_ROW_BINARY_STRUCTURE, checkedRowValues, eventsRowBinary } from './event-rows.ts';
import type { EventRowValues, RejectedRow } from './event-rows.ts';

/** A batch's rows, built for the way they travel: values for an insert's body, or one RowBinary body for a file. */
export type EventBatchRows = { count: number; values: EventRowValues[] } | { count: number; rowBinary: Buffer };

/**
 * Inserts a batch of events into `<database>.events` with its deduplication token, in one of two ways:
 *
 * - a server (no `stagingDir`): the rows in the insert's body as JSONCompactEachRow, over HTTP;
 * - embedded chDB (`stagingDir`): the rows written as one RowBinary file there, which the insert reads
 *   (`INSERT ... SELECT FROM file()`). chDB's connection takes an insert's body only as text, and
 *   parsing it was most of chDB's cost per row (bench/results/ab-history.md, goal 5): RowBinary costs
 *   about a third. The file is chDB's own process reading a file this process wrote; a server could
 *   not read it (it reads only its own `user_files`).
 *
 * Either way one insert is one block (a batch is under `min_insert_block_size_rows`) carrying the
 * batch's token, so a retried batch is dropped whole by the events table and the views alike.
 */
export class EventInserter {
  constructor(
    private readonly o: {
      clickhouse: ClickHouseClient;
      database: string;
      /** `<database>.events` is a Distributed table (CLICKHOUSE_CLUSTER). */
      distributed: boolean;
      /** Embedded chDB: a folder of this process's own for the batches' RowBinary files. */
      stagingDir?: string;
    },
  ) {
    if (o.stagingDir) {
      mkdirSync(o.stagingDir, { recursive: true });
      // Files of a process that stopped mid-insert: their batches are pending in Redis and are rebuilt on retry.
      for (const f of readdirSync(o.stagingDir))
        if (f.endsWith('.rowbinary')) rmSync(join(o.stagingDir, f), { force: true });
    }
  }

  /** Batches travel as RowBinary bodies (embedded chDB). */
  get rowBinary(): boolean {
    return this.o.stagingDir !== undefined;
  }

  rows(events: readonly EngineEvent[]): EventBatchRows {
    return batchRows(events, this.rowBinary);
  }

  async insert(rows: EventBatchRows, token: string): Promise<void> {
    if (rows.count === 0) return;
    const settings = eventInsertSettings(token, this.o.distributed);
    if ('values' in rows) {
      await this.o.clickhouse.insert({
        table: `${this.o.database}.events`,
        columns: [...EVENT_COLUMNS],
        // Each row as an array of values in the columns' order: no column names repeated on every row.
        values: rows.values,
        format: 'JSONCompactEachRow',
        clickhouse_settings: settings,
      });
      return;
    }
    const path = join(this.o.stagingDir ?? '', `${token}.rowbinary`);
    await writeFile(path, rows.rowBinary);
    try {
      // The settings in the statement: chDB's connection would SET clickhouse_settings on its session,
      // where they stay for every later statement (a later insert would carry this batch's token).
      await this.o.clickhouse.command({
        query: `INSERT INTO ${this.o.database}.events (${EVENT_COLUMNS.join(', ')}) SETTINGS ${settingsSql(settings)}
          SELECT * FROM file(${sqlString(path)}, 'RowBinary', ${sqlString(EVENT_ROW_BINARY_STRUCTURE)})`,
      });
    } finally {
      await rm(path, { force: true });
    }
  }
}

/**
 * A batch's rows for an insert's body (values) or for a file (one RowBinary body). A row whose values do not
 * fit the table's columns (`rowProblem`) is left out and given to `reject`; without `reject` it throws.
 */
export function batchRows(
  events: readonly EngineEvent[],
  rowBinary: boolean,
  reject?: (row: RejectedRow) => void,
): EventBatchRows {
  let rejected = 0;
  const onReject =
    reject &&
    ((row: RejectedRow) => {
      rejected++;
      reject(row);
    });
  if (rowBinary) {
    const body = eventsRowBinary(events, onReject);
    return { count: events.length - rejected, rowBinary: body };
  }
  const values: EventRowValues[] = [];
  for (let at = 0; at < events.length; at++) {
    const row = checkedRowValues(events[at] as EngineEvent);
    if (typeof row !== 'string') values.push(row);
    else if (onReject) onReject({ at, reason: row });
    else throw new Error(row);
  }
  return { count: values.length, values };
}

/**
 * The insert's settings: its token, deduplicating it in the events table and in the views it feeds, on one
 * server or on every shard. `optimize_on_insert` off: it would collapse an inserted block's rows of one key
 * in the SummingMergeTree tables, which the views' GROUP BY has already done (no two rows of a block share
 * a key), and it cost chDB about a fifth of an insert's time; merges still sum parts as before.
 */
export function eventInsertSettings(token: string, distributed: boolean): ClickHouseSettings {
  return {
    insert_deduplication_token: token,
    deduplicate_blocks_in_dependent_materialized_views: 1,
    optimize_on_insert: 0,
    // The older name of distributed_foreground_insert, which newer servers still take.
    ...(distributed ? { insert_distributed_sync: 1 } : {}),
  };
}

function settingsSql(settings: ClickHouseSettings): string {
  return Object.entries(settings)
    .map(([k, v]) => `${k} = ${typeof v === 'number' ? v : sqlString(String(v))}`)
    .join(', ');
}

/** A ClickHouse string literal. */
function sqlString(s: string): string {
  return `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}
