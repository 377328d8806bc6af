// `adnet restore <dir>`: a backup (backup.ts) into a new DATA_DIR that `pnpm start` then serves (docs/backup.md).
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { copyFile, mkdir, mkdtemp, readFile, rename, rm, rmdir, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { Redis } from 'ioredis';
import { restoreDatabase } from '@adnet/admin/clickhouse-backup';
import { BACKUP_FORMAT_VERSION, MANIFEST_FILE, backupManifestSchema } from '@adnet/schemas/backup';
import type { BackupManifest } from '@adnet/schemas/backup';
import type { Config } from '@adnet/schemas/config';
import { BackupInputError, copyMedia, folderState, listFiles, sha256File } from './backup-files.ts';

export interface RestoreResult {
  dataDir: string;
  files: number;
  ms: number;
  createdAt: string;
}

/** The backup's manifest, checked against every file it lists, or why `dir` is not a whole backup. */
export async function readBackup(dir: string): Promise<BackupManifest> {
  let text: string;
  try {
    text = await readFile(join(dir, MANIFEST_FILE), 'utf8');
  } catch {
    throw new BackupInputError(
      `${dir} is not a backup: it has no ${MANIFEST_FILE} (made by \`adnet backup\`, written last).`,
    );
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new BackupInputError(`${join(dir, MANIFEST_FILE)} is not JSON: not a backup manifest.`);
  }
  const version = (json as { version?: unknown } | null)?.version;
  if (typeof version === 'number' && version > BACKUP_FORMAT_VERSION)
    throw new BackupInputError(
      `${dir} is a backup of format ${version}; this version restores format ${BACKUP_FORMAT_VERSION} (use a newer adnet).`,
    );
  const parsed = backupManifestSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new BackupInputError(
      `${join(dir, MANIFEST_FILE)} is not a backup manifest: ${issue?.path.join('.') || 'it'} ${issue?.message ?? 'is invalid'}.`,
    );
  }
  const manifest = parsed.data;
  const listed = new Set(manifest.files.map((f) => f.path));
  const present = (await listFiles(dir)).filter((p) => p !== MANIFEST_FILE);
  const problems: string[] = [];
  for (const p of present) if (!listed.has(p)) problems.push(`${p} is not in the manifest`);
  for (const f of manifest.files) {
    const size = await stat(join(dir, f.path)).then(
      (s) => s.size,
      () => undefined,
    );
    if (size === undefined) problems.push(`${f.path} is missing`);
    else if (size !== f.bytes || (await sha256File(join(dir, f.path))) !== f.sha256)
      problems.push(`${f.path} does not match its checksum`);
  }
  if (!listed.has(manifest.holds.redis)) problems.push(`${manifest.holds.redis} is not in the manifest`);
  if (problems.length > 0)
    throw new BackupInputError(
      `${dir} is not a whole backup: ${problems.slice(0, 5).join('; ')}${problems.length > 5 ? ` (and ${problems.length - 5} more)` : ''}.`,
    );
  return manifest;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Redis's snapshot as the AOF the product's private Redis starts from: a Redis with AOF on ignores dump.rdb,
 * so a server of our own (on a socket only this user can reach) loads it and rewrites it as the AOF.
 */
async function snapshotToAof(redisDir: string): Promise<void> {
  const sockets = await mkdtemp(join(tmpdir(), 'adnet-restore-'));
  const socket = join(sockets, 'redis.sock');
  try {
    const child = spawn(
      'redis-server',
      [
        '--port',
        '0',
        '--unixsocket',
        socket,
        '--unixsocketperm',
        '700',
        '--dir',
        redisDir,
        '--dbfilename',
        'dump.rdb',
        '--appendonly',
        'no',
        '--save',
        '',
        '--logfile',
        join(sockets, 'redis.log'),
      ],
      { stdio: 'ignore' },
    );
    const exited = new Promise<void>((r) => child.once('exit', () => r()));
    const started: { error?: Error } = {};
    child.once('error', (e) => (started.error = e));
    const redis = new Redis({ path: socket, lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
    redis.on('error', () => undefined);
    try {
      for (let i = 0; ; i++) {
        if (started.error)
          throw new Error(
            `redis-server could not start (${started.error.message}); restore needs it (Debian/Ubuntu: apt-get install redis-server)`,
          );
        if (child.exitCode !== null)
          throw new Error(
            `redis-server stopped while loading the snapshot: ${await readFile(join(sockets, 'redis.log'), 'utf8').catch(() => '')}`,
          );
        if (i > 600) throw new Error('redis-server did not load the snapshot within a minute');
        try {
          await redis.connect();
          if (/loading:0/.test(await redis.info('persistence'))) break;
        } catch {
          redis.disconnect();
        }
        await sleep(100);
      }
      await redis.config('SET', 'appendonly', 'yes');
      for (;;) {
        const p = await redis.info('persistence');
        if (/aof_rewrite_in_progress:0/.test(p) && /aof_rewrite_scheduled:0/.test(p) && /aof_rewrites:[1-9]/.test(p)) {
          if (!/aof_last_bgrewrite_status:ok/.test(p))
            throw new Error('Redis could not write the AOF from the snapshot');
          break;
        }
        await sleep(50);
      }
      await redis.call('SHUTDOWN', 'NOSAVE').catch(() => undefined);
      await exited;
    } finally {
      redis.disconnect();
      if (child.exitCode === null) child.kill('SIGKILL');
    }
    await rm(join(redisDir, 'dump.rdb'));
  } finally {
    await rm(sockets, { recursive: true, force: true });
  }
}

export async function restoreBackup(config: Pick<Config, 'storage' | 'stats'>, source: string): Promise<RestoreResult> {
  const started = Date.now();
  if (config.storage.redisUrl || config.stats.clickhouseUrl)
    throw new BackupInputError(
      '`adnet restore` writes the embedded default (private Redis and chDB under DATA_DIR); with REDIS_URL or CLICKHOUSE_URL set, restore those servers with their own tools (docs/backup.md).',
    );
  const from = resolve(source);
  const target = resolve(config.storage.dataDir);
  // Checked first, and checked again just before the move: nothing in a folder in use is ever touched.
  const state = await folderState(target);
  if (state === 'file')
    throw new BackupInputError(`DATA_DIR ${target} is a file: restore goes into a new or empty folder.`);
  if (state === 'not-empty')
    throw new BackupInputError(
      `DATA_DIR ${target} is not empty: restore goes into a new or empty folder (nothing was changed).`,
    );
  const manifest = await readBackup(from);
  // Built beside the target and moved into place whole: a failed restore leaves no half data directory.
  const work = join(dirname(target), `.${basename(target)}.restoring-${randomBytes(4).toString('hex')}`);
  await mkdir(work, { recursive: true, mode: 0o700 });
  try {
    await mkdir(join(work, 'redis'), { mode: 0o700 });
    await copyFile(join(from, manifest.holds.redis), join(work, 'redis', 'dump.rdb'));
    await snapshotToAof(join(work, 'redis'));
    await restoreDatabase(
      join(work, 'clickhouse'),
      join(from, manifest.holds.clickhouse.dir),
      manifest.holds.clickhouse.database,
    );
    const media = await copyMedia(join(from, manifest.holds.media.dir), join(work, 'media'));
    if (media !== manifest.holds.media.files)
      throw new Error(`the backup lists ${manifest.holds.media.files} images but holds ${media}`);
    const now = await folderState(target);
    if (now === 'not-empty' || now === 'file')
      throw new BackupInputError(`DATA_DIR ${target} was written to during the restore; nothing in it was changed.`);
    if (now === 'empty') await rmdir(target);
    await rename(work, target);
    return { dataDir: target, files: manifest.files.length, ms: Date.now() - started, createdAt: manifest.created_at };
  } catch (e) {
    await rm(work, { recursive: true, force: true });
    throw e;
  }
}

export async function restoreCommand(
  config: Pick<Config, 'storage' | 'stats'>,
  source: string | undefined,
): Promise<number> {
  if (!source) {
    process.stderr.write('Usage: pnpm adnet restore <dir>   (into DATA_DIR, which must be new or empty)\n');
    return 2;
  }
  try {
    const r = await restoreBackup(config, source);
    process.stdout.write(
      `backup of ${r.createdAt} restored into ${r.dataDir} (${r.files} files checked) in ${(r.ms / 1000).toFixed(1)} s; \`pnpm start\` with DATA_DIR=${r.dataDir} serves it\n`,
    );
    return 0;
  } catch (e) {
    process.stderr.write(`${e instanceof BackupInputError ? '' : 'Restore failed: '}${(e as Error).message}\n`);
    return e instanceof BackupInputError ? 2 : 1;
  }
}
