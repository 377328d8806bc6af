import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { createClient } from '@clickhouse/client';
import type { ClickHouseClient } from '@clickhouse/client';

export type { ClickHouseClient };

/** Where the admin's ClickHouse BACKUP writes (`adnet backup`, docs/backup.md): chDB may write backups nowhere else. */
export const backupStagingDir = (dataDir: string): string => resolve(dataDir, 'backup-staging');

/**
 * The embedded store's caches, bounded. ClickHouse sizes them for a server of its own (marks and primary
 * indexes up to 5 GiB each, half the RAM in all); embedded in the admin process they would grow with the
 * statistics for hours and read as a leak. Statistics queries read hourly aggregates, so small caches cost
 * them little. A ClickHouse server (CLICKHOUSE_URL) keeps its own settings.
 */
const EMBEDDED_CACHE_LIMITS = [
  '--mark_cache_size=67108864',
  '--primary_index_cache_size=67108864',
  '--index_mark_cache_size=16777216',
  '--query_condition_cache_size=16777216',
  '--compiled_expression_cache_size=33554432',
];

/**
 * The event store: a ClickHouse server when CLICKHOUSE_URL is set, otherwise
 * embedded chDB under `<dataDir>/clickhouse` (DATA_DIR), both behind @clickhouse/client.
 * Only one process may open a chDB folder, so only the admin process calls this.
 */
export async function openClickHouse(clickhouseUrl: string | undefined, dataDir: string): Promise<ClickHouseClient> {
  if (clickhouseUrl) return createClient({ url: clickhouseUrl });
  const path = resolve(dataDir, 'clickhouse');
  mkdirSync(path, { recursive: true });
  // Loaded lazily: chDB brings a large native library that processes with a server URL never need.
  const [{ Session }, { createChdbConnection }] = await Promise.all([import('chdb'), import('chdb/connection')]);
  // The connection takes only a path, and server settings are fixed when a folder is opened: a session of our
  // own opens it first with BACKUP allowed into the staging folder, and the connection shares that engine.
  const session = new Session(path, {
    connectionArgs: ['--', `--backups.allowed_path=${backupStagingDir(dataDir)}`, ...EMBEDDED_CACHE_LIMITS],
  });
  // chdb types its connection against @clickhouse/client-common, which the client bundles
  // as its own copy: the shapes match, the declarations are distinct.
  type ClientConnection = NonNullable<Parameters<typeof createClient>[0]>['connection'];
  try {
    return createClient({ connection: createChdbConnection({ path }) as unknown as ClientConnection });
  } finally {
    // The engine stays open for the connection; the session was only its way in.
    session.close();
  }
}
