import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { ClickHouseClient } from '@clickhouse/client';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BACKUP_REQUESTS, backupReplyKey, backupReplySchema } from '@adnet/schemas/backup';
import type { BackupReply } from '@adnet/schemas/backup';
import type { EngineEvent } from '@adnet/schemas/events';
import { EVENT_STREAM } from '@adnet/schemas/redis-keys';
import { xaddArgs } from '@adnet/schemas/wire/event-stream';
import { backupResponder } from '../src/backup/backup-responder.ts';
import { backupStagingDir } from '../src/clickhouse/open.ts';
import { INGEST_GROUP, Ingester } from '../src/ingest/ingester.ts';
import { createLogger } from '../src/log.ts';
import { useTestApp } from '@adnet/test-support/admin';

// The running admin's side of `adnet backup` (launcher/test/backup-restore.test.ts restores what it writes).
const fx = useTestApp({}, { clickhouse: true });
const log = createLogger('silent');
const connections: Redis[] = [];
let seq = 0;

const impression = (): EngineEvent => ({
  id: `bk-${process.pid}-${++seq}`,
  type: 'impression',
  bid_id: 'b',
  ts: Date.parse('2026-11-20T10:30:00Z'),
  engine: 'e1',
  campaign_id: 7,
  advertiser_id: 9,
  creative_id: 1,
  charge_nano: 0,
  country: 'us',
  device: 'desktop',
});

function ingester(): Ingester {
  const redis = new Redis(fx.redis.url, { enableAutoPipelining: false });
  connections.push(redis);
  return new Ingester({
    redis,
    clickhouse: fx.app.svc.clickhouse as ClickHouseClient,
    database: 'adnet',
    log,
    batchRows: 500,
    flushMs: 50,
  });
}

const responderFor = (ing: Ingester) =>
  backupResponder({
    redis: fx.app.svc.redis,
    clickhouse: fx.app.svc.clickhouse as ClickHouseClient,
    database: 'adnet',
    dataDir: fx.app.svc.config.storage.dataDir,
    ingester: ing,
    log,
  });

/** Pushes a request as the CLI does, lets the responder take it, and reads every answer it gave. */
async function ask(ing: Ingester, request: string): Promise<BackupReply[]> {
  await fx.app.svc.redis.rpush(BACKUP_REQUESTS, request);
  await responderFor(ing).runOnce();
  expect(await fx.app.svc.redis.llen(BACKUP_REQUESTS)).toBe(0);
  const id = (JSON.parse(request) as { id: string }).id;
  return (await fx.app.svc.redis.lrange(backupReplyKey(id), 0, -1)).map((r) => backupReplySchema.parse(JSON.parse(r)));
}

const newId = () => `${Date.now().toString(16).padStart(16, '0')}${(++seq).toString(16).padStart(16, '0')}`;

let running: Ingester;
beforeAll(async () => {
  running = ingester();
  await running.start();
});
afterAll(async () => {
  await running.stop();
  for (const c of connections) await c.quit();
});

describe('backup responder', () => {
  it('takes ClickHouse BACKUP and a Redis snapshot with the ingester at rest, then lets it read on', async () => {
    for (let i = 0; i < 6; i++) await fx.app.svc.redis.xadd(...xaddArgs([impression(), impression()], 1_000_000));
    const id = newId();
    const replies = await ask(running, JSON.stringify({ id, at: Date.now() }));
    expect(replies.map((r) => r.state)).toEqual(['started', 'done']);
    const done = replies[1] as Extract<BackupReply, { state: 'done' }>;
    expect(done.database).toBe('adnet');
    expect(done.rdbSaves).toBeGreaterThan(0);
    expect(done.events.length).toBe(await fx.app.svc.redis.xlen(EVENT_STREAM));
    expect(existsSync(join(backupStagingDir(fx.app.svc.config.storage.dataDir), id, '.backup'))).toBe(true);
    // Reading again: what comes after the backup is ingested.
    await fx.app.svc.redis.xadd(...xaddArgs([impression()], 1_000_000));
    for (let i = 0; i < 200 && ((await running.backlog()).lag > 0 || (await running.backlog()).pending > 0); i++)
      await new Promise((r) => setTimeout(r, 25));
    expect(await running.backlog()).toMatchObject({ lag: 0, pending: 0 });
  });

  it('refuses while an event entry waits for a retried insert, and leaves no staging folder', async () => {
    // A consumer that read an entry and never acknowledged it: its insert may have landed or not.
    const idle = ingester();
    await fx.app.svc.redis.xgroup('CREATE', EVENT_STREAM, INGEST_GROUP, '0', 'MKSTREAM').catch(() => undefined);
    await running.quiesce(async () => {
      await fx.app.svc.redis.xadd(...xaddArgs([impression()], 1_000_000));
      await fx.app.svc.redis.xreadgroup('GROUP', INGEST_GROUP, 'ghost', 'COUNT', 1, 'STREAMS', EVENT_STREAM, '>');
    });
    const id = newId();
    const replies = await ask(idle, JSON.stringify({ id, at: Date.now() }));
    expect(replies[1]).toEqual({
      state: 'failed',
      error: expect.stringContaining('1 event entries wait for a retried insert') as unknown,
    });
    expect(existsSync(join(backupStagingDir(fx.app.svc.config.storage.dataDir), id))).toBe(false);
    const [[entryId]] = (await fx.app.svc.redis.xpending(EVENT_STREAM, INGEST_GROUP, '-', '+', 10, 'ghost')) as [
      [string],
    ];
    await fx.app.svc.redis.xack(EVENT_STREAM, INGEST_GROUP, entryId);
  });

  it('refuses a request its CLI has given up, and drops what is not a request without acting on it', async () => {
    const replied = (await fx.app.svc.redis.keys('ops:backup:reply:*')).length;
    const stale = newId();
    expect(await ask(running, JSON.stringify({ id: stale, at: Date.now() - 60_000 }))).toEqual([
      { state: 'failed', error: 'the request waited too long; run the backup again' },
    ]);
    for (const bad of [
      JSON.stringify({ id: '../../etc', at: Date.now() }),
      JSON.stringify({ id: newId() }),
      JSON.stringify({ id: 'not json' }).slice(3),
    ]) {
      await fx.app.svc.redis.rpush(BACKUP_REQUESTS, bad);
      await responderFor(running).runOnce();
    }
    expect(await fx.app.svc.redis.llen(BACKUP_REQUESTS)).toBe(0);
    // Only the stale request was answered.
    expect(await fx.app.svc.redis.keys('ops:backup:reply:*')).toHaveLength(replied + 1);
    expect(existsSync(join(backupStagingDir(fx.app.svc.config.storage.dataDir), '../../etc'))).toBe(false);
  });
});
