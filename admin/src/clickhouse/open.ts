import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { createClient } from '@clickhouse/client';
import type { ClickHouseClient } from '@clickhouse/client';
import type { Config } from '@adnet/schemas/config';

export type { ClickHouseClient };

/** Where the admin's ClickHouse BACKUP writes (`adnet backup`, docs/backup.md): chDB may write backups nowhere else. */
export const backupStagingDir = (dataDir: string): string => resolve(dataDir, 'backup-staging');

/**
 * The event store: a ClickHouse server when CLICKHOUSE_URL is set, otherwise
 * embedded chDB under `<dataDir>/clickhouse`, both behind @clickhouse/client.
 * Only one process may open a chDB folder, so only the admin process calls this.
 */
export async function openClickHouse(config: Config): Promise<ClickHouseClient> {
  if (config.clickhouseUrl) return createClient({ url: config.clickhouseUrl });
  const path = resolve(config.dataDir, 'clickhouse');
  mkdirSync(path, { recursive: true });
  // Loaded lazily: chDB brings a large native library that processes with a server URL never need.
  const [{ Session }, { createChdbConnection }] = await Promise.all([import('chdb'), import('chdb/connection')]);
  // The connection takes only a path, and server settings are fixed when a folder is opened: a session of our
  // own opens it first with BACKUP allowed into the staging folder, and the connection shares that engine.
  const session = new Session(path, { connectionArgs: ['--', `--backups.allowed_path=${backupStagingDir(config.dataDir)}`] });
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
