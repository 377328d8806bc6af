import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Redis } from 'ioredis';
import { BACKUP_REQUESTS, backupReplyKey, backupRequestSchema } from '@adnet/schemas/backup';
import type { BackupReply } from '@adnet/schemas/backup';
import { EVENT_STREAM } from '@adnet/schemas/redis-keys';
import { Periodic } from '@adnet/runtime/periodic';
import { backupDatabase } from '../clickhouse/backup.ts';
import { backupStagingDir } from '../clickhouse/open.ts';
import type { ClickHouseClient } from '../clickhouse/open.ts';
import { INGEST_GROUP } from '../ingest/event-backlog.ts';
import type { Ingester } from '../ingest/ingester.ts';
import type { Logger } from '../log.ts';

export interface BackupResponderOptions {
  redis: Redis;
  clickhouse: ClickHouseClient;
  database: string;
  dataDir: string;
  ingester: Ingester;
  log: Logger;
  pollMs?: number;
}

/** A request older than this was given up by its CLI (which waits for `started` this long at most). */
export const BACKUP_REQUEST_TTL_MS = 30_000;
const REPLY_TTL_S = 3_600;
/** How long a BGSAVE may wait behind a save or an AOF rewrite already running, and then take. */
const SAVE_WAIT_MS = 10 * 60_000;

/**
 * The running admin's side of `adnet backup` (docs/backup.md). Only one process may open the chDB folder,
 * so the CLI cannot read it: it pushes a request onto a Redis list (which only holders of the private
 * Redis's password reach) and this takes it. The request names nothing but its id: the admin writes only
 * into its own `<DATA_DIR>/backup-staging/<id>`, the one folder chDB was opened to allow BACKUP into.
 */
export function backupResponder(o: BackupResponderOptions): Periodic {
  return new Periodic({
    intervalMs: o.pollMs ?? 500,
    pass: () => takeRequest(o),
    onError: (err) => o.log.error({ err, event: 'backup.failed' }, 'backup request failed'),
  });
}

async function reply(redis: Redis, id: string, answer: BackupReply): Promise<void> {
  await redis.multi().rpush(backupReplyKey(id), JSON.stringify(answer)).expire(backupReplyKey(id), REPLY_TTL_S).exec();
}

async function takeRequest(o: BackupResponderOptions): Promise<void> {
  const raw = await o.redis.lpop(BACKUP_REQUESTS);
  if (raw === null) return;
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch {
    json = undefined;
  }
  const parsed = backupRequestSchema.safeParse(json);
  if (!parsed.success) {
    o.log.warn({ event: 'backup.bad_request' }, 'a backup request that is not one was dropped');
    return;
  }
  const { id, at } = parsed.data;
  if (Date.now() - at > BACKUP_REQUEST_TTL_MS)
    return reply(o.redis, id, { state: 'failed', error: 'the request waited too long; run the backup again' });
  await reply(o.redis, id, { state: 'started' });
  const dir = join(backupStagingDir(o.dataDir), id);
  const started = Date.now();
  try {
    const done = await takeBackup(o, dir);
    o.log.info({ event: 'backup.taken', id, ms: Date.now() - started, events: done.events }, 'backup taken');
    await reply(o.redis, id, done);
  } catch (err) {
    await rm(dir, { recursive: true, force: true });
    o.log.error({ err, event: 'backup.failed', id }, 'backup failed');
    await reply(o.redis, id, { state: 'failed', error: (err as Error).message });
  }
}

/**
 * Both snapshots with the ingester at rest, so that ClickHouse holds exactly the stream entries the Redis
 * snapshot's consumer group has acknowledged (docs/backup.md, "Consistency"). The ingester reads on as soon
 * as Redis has forked its snapshot; the engines never wait.
 */
async function takeBackup(o: BackupResponderOptions, dir: string): Promise<Extract<BackupReply, { state: 'done' }>> {
  await mkdir(backupStagingDir(o.dataDir), { recursive: true, mode: 0o700 });
  const { events, savesBefore } = await o.ingester.quiesce(async () => {
    const group = await ingestGroup(o.redis);
    // Delivered but not acknowledged: an insert that failed, perhaps after ClickHouse kept it. Its retry
    // after a restore would not be recognised (BACKUP leaves out the deduplication log), so wait for it.
    if (group.pending > 0)
      throw new Error(
        `${group.pending} event entries wait for a retried insert into ClickHouse; run the backup again once the ingest backlog's pending is 0`,
      );
    await backupDatabase(o.clickhouse, o.database, dir);
    const savesBefore = await startSave(o.redis);
    return {
      events: { length: await o.redis.xlen(EVENT_STREAM), lastDeliveredId: group.lastDeliveredId },
      savesBefore,
    };
  });
  return { state: 'done', database: o.database, rdbSaves: await saveFinished(o.redis, savesBefore), events };
}

async function ingestGroup(redis: Redis): Promise<{ pending: number; lastDeliveredId: string }> {
  const groups = (await redis.xinfo('GROUPS', EVENT_STREAM).catch(() => [])) as unknown[][];
  for (const row of groups) {
    const g = new Map<string, unknown>();
    for (let i = 0; i + 1 < row.length; i += 2) g.set(String(row[i]), row[i + 1]);
    const last = g.get('last-delivered-id');
    if (g.get('name') === INGEST_GROUP)
      return { pending: Number(g.get('pending') ?? 0), lastDeliveredId: typeof last === 'string' ? last : '0-0' };
  }
  return { pending: 0, lastDeliveredId: '0-0' };
}

async function persistence(redis: Redis): Promise<Map<string, string>> {
  const info = await redis.info('persistence');
  return new Map(
    info.split(/\r?\n/).flatMap((line) => (line.includes(':') ? [line.split(':', 2) as [string, string]] : [])),
  );
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * BGSAVE, once no other save or AOF rewrite runs (Redis refuses one then); resolves when Redis has forked, the
 * moment the snapshot is of. The count of saves before it, to know when it is written.
 */
async function startSave(redis: Redis): Promise<number> {
  const deadline = Date.now() + SAVE_WAIT_MS;
  for (;;) {
    const p = await persistence(redis);
    const busy = p.get('rdb_bgsave_in_progress') === '1' || p.get('aof_rewrite_in_progress') === '1';
    if (!busy) {
      try {
        await redis.bgsave();
        return Number(p.get('rdb_saves') ?? 0);
      } catch (err) {
        if (!/in progress/i.test((err as Error).message)) throw err;
      }
    }
    if (Date.now() > deadline) throw new Error('Redis was busy saving for too long to start a snapshot');
    await sleep(100);
  }
}

/** Waits for the BGSAVE started after `before` saves to be written; the count of saves with it. */
async function saveFinished(redis: Redis, before: number): Promise<number> {
  const deadline = Date.now() + SAVE_WAIT_MS;
  for (;;) {
    const p = await persistence(redis);
    if (p.get('rdb_bgsave_in_progress') === '0') {
      if (p.get('rdb_last_bgsave_status') !== 'ok') throw new Error(`Redis could not write its snapshot; see its log`);
      const saves = Number(p.get('rdb_saves') ?? 0);
      if (saves > before) return saves;
    }
    if (Date.now() > deadline) throw new Error('Redis took too long to write its snapshot');
    await sleep(50);
  }
}
