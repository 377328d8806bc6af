// `adnet backup <dir>`: a consistent copy of a running embedded default (docs/backup.md).
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { chmod, copyFile, cp, mkdir, readFile, readdir, rename, rm, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { Redis } from 'ioredis';
import { BACKUP_REQUEST_TTL_MS } from '@adnet/admin/backup-responder';
import { backupStagingDir } from '@adnet/admin/clickhouse';
import {
  BACKUP_FORMAT,
  BACKUP_FORMAT_VERSION,
  BACKUP_REQUESTS,
  MANIFEST_FILE,
  backupReplyKey,
  backupReplySchema,
} from '@adnet/schemas/backup';
import type { BackupManifest, BackupReply } from '@adnet/schemas/backup';
import type { Config } from '@adnet/schemas/config';
import { BackupInputError, copyMedia, describeFiles, folderState, listFiles } from './backup-files.ts';
import { redisAnswers } from './private-redis.ts';

/** How long the admin may take over its part (ClickHouse BACKUP and Redis's snapshot) once it has begun. */
const BACKUP_TIMEOUT_MS = 60 * 60_000;

export interface BackupResult {
  dir: string;
  files: number;
  bytes: number;
  ms: number;
  events: BackupManifest['events'];
}

/**
 * The private Redis of a product running on `dataDir`, or why there is none. Never starts one: a backup is
 * of a product that serves, and only its admin can read the chDB folder.
 */
async function runningPrivateRedis(dataDir: string): Promise<string> {
  const dir = resolve(dataDir, 'redis');
  const none = new BackupInputError(
    `No product is running on DATA_DIR ${resolve(dataDir)}: \`adnet backup\` copies a running \`pnpm start\` (start it first, with the same DATA_DIR).`,
  );
  if (!existsSync(join(dir, 'redis.url')) || !existsSync(join(dir, 'redis.password'))) throw none;
  const url = new URL((await readFile(join(dir, 'redis.url'), 'utf8')).trim());
  url.password = (await readFile(join(dir, 'redis.password'), 'utf8')).trim();
  if (!(await redisAnswers(url.href))) throw none;
  return url.href;
}

/** Asks the running admin for its part and waits for its answer (docs/backup.md, "How it is taken"). */
async function askAdmin(redis: Redis, id: string): Promise<Extract<BackupReply, { state: 'done' }>> {
  const request = JSON.stringify({ id, at: Date.now() });
  await redis.rpush(BACKUP_REQUESTS, request);
  const next = async (timeoutMs: number): Promise<BackupReply | undefined> => {
    const got = await redis.blpop(backupReplyKey(id), timeoutMs / 1000);
    return got ? backupReplySchema.parse(JSON.parse(got[1])) : undefined;
  };
  const first = await next(BACKUP_REQUEST_TTL_MS);
  if (!first) {
    // Taken back so that no admin acts on it later (one that takes it now finds it stale anyway).
    await redis.lrem(BACKUP_REQUESTS, 1, request);
    throw new Error(
      `The product's admin did not take the backup request within ${BACKUP_REQUEST_TTL_MS / 1000} s: is \`pnpm start\` running on this DATA_DIR, and of this version?`,
    );
  }
  const last = first.state === 'started' ? await next(BACKUP_TIMEOUT_MS) : first;
  if (!last)
    throw new Error(
      `The admin did not finish the backup within ${BACKUP_TIMEOUT_MS / 60_000} minutes; see its log (event backup.failed)`,
    );
  if (last.state !== 'done')
    throw new Error(
      last.state === 'failed' ? `The admin could not take the backup: ${last.error}` : 'The admin answered out of turn',
    );
  return last;
}

/** Redis's snapshot file and its count of saves (`rdb_saves`). */
async function snapshotFile(redis: Redis): Promise<{ path: string; saves: number }> {
  const [, dir] = (await redis.config('GET', 'dir')) as string[];
  const [, file] = (await redis.config('GET', 'dbfilename')) as string[];
  const saves = /rdb_saves:(\d+)/.exec(await redis.info('persistence'))?.[1];
  return { path: join(dir ?? '', file ?? 'dump.rdb'), saves: Number(saves) };
}

export async function takeBackup(config: Pick<Config, 'storage' | 'stats'>, target: string): Promise<BackupResult> {
  const started = Date.now();
  if (config.storage.redisUrl || config.stats.clickhouseUrl)
    throw new BackupInputError(
      '`adnet backup` copies the embedded default (private Redis and chDB under DATA_DIR); with REDIS_URL or CLICKHOUSE_URL set, back up those servers with their own tools (docs/backup.md).',
    );
  const dir = resolve(target);
  const state = await folderState(dir);
  if (state === 'file') throw new BackupInputError(`${dir} is a file: a backup goes into a new or empty folder.`);
  if (state === 'not-empty')
    throw new BackupInputError(`${dir} is not empty: a backup goes into a new or empty folder (nothing was changed).`);
  const redis = new Redis(await runningPrivateRedis(config.storage.dataDir), {
    maxRetriesPerRequest: 1,
    lazyConnect: true,
  });
  redis.on('error', () => undefined);
  const id = randomBytes(16).toString('hex');
  const staged = join(backupStagingDir(config.storage.dataDir), id);
  // Holds every password hash and balance: the owner's only, like DATA_DIR/redis.
  await mkdir(dir, { recursive: true, mode: 0o700 });
  await chmod(dir, 0o700);
  try {
    await redis.connect();
    const done = await askAdmin(redis, id);

    const rdb = await snapshotFile(redis);
    await mkdir(join(dir, 'redis'), { mode: 0o700 });
    await copyFile(rdb.path, join(dir, 'redis', 'dump.rdb'));
    // Another save since would have replaced the file with a later state than ClickHouse's copy.
    if ((await snapshotFile(redis)).saves !== done.rdbSaves)
      throw new Error('Redis wrote another snapshot while this one was copied; run the backup again');

    await rename(staged, join(dir, 'clickhouse')).catch(async (e: NodeJS.ErrnoException) => {
      if (e.code !== 'EXDEV') throw e;
      await cp(staged, join(dir, 'clickhouse'), { recursive: true });
    });
    // After Redis's snapshot: every image a creative in it names was already written.
    const mediaFiles = await copyMedia(join(config.storage.dataDir, 'media'), join(dir, 'media'));

    const files = await describeFiles(dir, await listFiles(dir));
    const manifest: BackupManifest = {
      format: BACKUP_FORMAT,
      version: BACKUP_FORMAT_VERSION,
      created_at: new Date(started).toISOString(),
      holds: {
        redis: 'redis/dump.rdb',
        clickhouse: { dir: 'clickhouse', database: done.database },
        media: { dir: 'media', files: mediaFiles },
      },
      events: { length: done.events.length, last_delivered_id: done.events.lastDeliveredId },
      files,
    };
    // Written last: a folder with a manifest is a whole backup.
    await writeFile(join(dir, MANIFEST_FILE), JSON.stringify(manifest, null, 2) + '\n', { mode: 0o600 });
    return {
      dir,
      files: files.length,
      bytes: files.reduce((n, f) => n + f.bytes, 0),
      ms: Date.now() - started,
      events: manifest.events,
    };
  } catch (e) {
    // The folder was new or empty: leave it so.
    for (const name of await readdir(dir).catch(() => [])) await rm(join(dir, name), { recursive: true, force: true });
    throw e;
  } finally {
    await rm(staged, { recursive: true, force: true });
    redis.disconnect();
  }
}

/** The command: prints what it did or why not; the exit code. */
export async function backupCommand(
  config: Pick<Config, 'storage' | 'stats'>,
  target: string | undefined,
): Promise<number> {
  if (!target) {
    process.stderr.write('Usage: pnpm adnet backup <dir>\n');
    return 2;
  }
  try {
    const r = await takeBackup(config, target);
    process.stdout.write(
      `backup of ${resolve(config.storage.dataDir)} written to ${r.dir}: ${r.files} files, ${(r.bytes / 1_048_576).toFixed(1)} MiB in ${(r.ms / 1000).toFixed(1)} s ` +
        `(event stream: ${r.events.length} entries, ingested up to ${r.events.last_delivered_id})\n`,
    );
    return 0;
  } catch (e) {
    process.stderr.write(`${e instanceof BackupInputError ? '' : 'Backup failed: '}${(e as Error).message}\n`);
    return e instanceof BackupInputError ? 2 : 1;
  }
}
