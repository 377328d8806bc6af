import type { ClickHouseClient } from '@clickhouse/client';

/** A path as a ClickHouse string literal. */
const literal = (path: string): string => `'${path.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;

/**
 * BACKUP of the statistics' database into `dir` (under the staging folder chDB was opened to allow, open.ts):
 * a consistent copy of every table's parts at this moment, written while the database keeps serving.
 */
export async function backupDatabase(clickhouse: ClickHouseClient, database: string, dir: string): Promise<void> {
  const r = await clickhouse.query({
    query: `BACKUP DATABASE ${database} TO File(${literal(dir)})`,
    format: 'JSONEachRow',
  });
  const [row] = await r.json<{ status: string }>();
  if (row?.status !== 'BACKUP_CREATED') throw new Error(`ClickHouse BACKUP ended ${row?.status ?? 'without a status'}`);
}

/**
 * RESTORE of a BACKUP in `from` into a new embedded chDB folder `path`. Only one process may open a chDB folder:
 * the caller makes sure no product runs on it (`adnet restore` writes into a folder of its own).
 */
export async function restoreDatabase(path: string, from: string, database: string): Promise<void> {
  const { Session } = await import('chdb');
  const session = new Session(path, { connectionArgs: ['--', `--backups.allowed_path=${from}`] });
  try {
    const status = (
      await session.queryAsync(`RESTORE DATABASE ${database} FROM File(${literal(from)})`, { format: 'TSV' })
    )
      .text()
      .trim();
    if (!status.endsWith('RESTORED')) throw new Error(`ClickHouse RESTORE ended ${status || 'without a status'}`);
  } finally {
    session.close();
  }
}
