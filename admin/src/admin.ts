import type { Config } from '@adnet/schemas/config';
import { backupResponder } from './backup/backup-responder.ts';
import { migrate } from './clickhouse/migrations.ts';
import { openClickHouse } from './clickhouse/open.ts';
import type { ClickHouseClient } from './clickhouse/open.ts';
import { createOpsServer } from './http/ops-server.ts';
import { createAdminServer } from './http/server.ts';
import type { AdminServer } from './http/server.ts';
import { eventBacklog } from './ingest/event-backlog.ts';
import { INGEST_COMMAND_TIMEOUT_MS, Ingester } from './ingest/ingester.ts';
import type { Logger } from './log.ts';
import { ConversionStore } from './postback/conversion-store.ts';
import { PostbackWorker } from './postback/postback-worker.ts';
import { createServices } from './services.ts';
import type { Services } from './services.ts';
import { connectRedis } from './storage/redis.ts';
import { VideoPoller } from './video/poller.ts';
import type { Periodic } from '@adnet/runtime/periodic';
import { payoutCloser } from './payments/payout-close.ts';
import { join, resolve } from 'node:path';
import { lowBalanceWatch } from './mail/low-balance-watch.ts';
import { MailWorker } from './mail/mail-worker.ts';
import { createMailTransport } from './mail/transport.ts';
import type { MailTransport } from './mail/transport.ts';

/** What runs beside the HTTP server: the background workers and the operators' address. */
export type AdminPart = 'ingester' | 'postbacks' | 'video' | 'ops' | 'payouts' | 'mail';
export const ADMIN_PARTS: readonly AdminPart[] = ['ingester', 'postbacks', 'video', 'ops', 'payouts', 'mail'];

export interface AdminOptions {
  config: Config;
  /** REDIS_URL, or the private server the launcher started. */
  redisUrl: string;
  log: Logger;
  /** The built cabinet, served under /cabinet. */
  cabinetDir?: string;
  /** The event store (CLICKHOUSE_URL or embedded chDB), migrated before anything serves; on unless false. */
  clickhouse?: boolean;
  /** Every part unless a test leaves out the ones it drives by hand (a worker on its own clock) or does not need. */
  parts?: readonly AdminPart[];
}

export interface Admin {
  svc: Services;
  server: AdminServer;
  /** The ingester, when it is one of the parts (tests wait on its backlog). */
  ingester: Ingester | undefined;
  /**
   * The mail worker and the low-balance watch: always built (tests drive them with `runOnce`), started
   * only when 'mail' is one of the parts.
   */
  mail: { worker: MailWorker; lowBalance: Periodic; transport: MailTransport };
  /** Starts the parts, then listens; resolves with the bound port (0 picks a free one). */
  start(at: { port: number; host: string }): Promise<number>;
  /** Stops whatever was built or started, newest first; a part that fails to stop is logged and the rest still stop. */
  stop(): Promise<void>;
}

interface Closer {
  name: string;
  close: () => Promise<unknown>;
}

async function openEventStore(config: Config, log: Logger, closers: Closer[]): Promise<ClickHouseClient> {
  const clickhouse = await openClickHouse(config);
  closers.push({ name: 'clickhouse', close: () => clickhouse.close() });
  const ran = await migrate(clickhouse, { database: config.clickhouseDatabase, eventTtlDays: config.eventTtlDays, cluster: config.clickhouseCluster });
  if (ran.length) log.info({ event: 'clickhouse.migrated', versions: ran }, 'clickhouse migrated');
  return clickhouse;
}

function buildIngester(opts: AdminOptions, clickhouse: ClickHouseClient | undefined, closers: Closer[]): Ingester {
  const { config, log } = opts;
  if (!clickhouse) throw new Error('the ingester needs ClickHouse');
  // Its own connection: the ingester blocks on XREADGROUP.
  const redis = connectRedis(opts.redisUrl, 'ingest', { enableAutoPipelining: false, commandTimeout: INGEST_COMMAND_TIMEOUT_MS });
  const ingester = new Ingester({
    redis,
    clickhouse,
    database: config.clickhouseDatabase,
    log,
    batchRows: config.ingestBatchRows,
    flushMs: config.ingestFlushMs,
    distributed: config.clickhouseCluster !== undefined,
    // Embedded chDB reads each batch from a RowBinary file (one process opens the chDB folder, so this one is its own).
    ...(config.clickhouseUrl ? {} : { stagingDir: resolve(config.dataDir, 'clickhouse-ingest') }),
  });
  closers.push({ name: 'ingester', close: async () => (await ingester.stop(), await redis.quit()) });
  return ingester;
}

/**
 * The admin process's pieces, built and connected but not yet serving (as Fastify keeps `build`
 * apart from `listen`): `pnpm start` and the tests' fixtures call this same builder.
 */
export async function createAdmin(opts: AdminOptions): Promise<Admin> {
  const { config, log } = opts;
  const parts = new Set(opts.parts ?? ADMIN_PARTS);
  const closers: Closer[] = [];
  const stop = async (): Promise<void> => {
    for (const { name, close } of closers.splice(0).reverse()) {
      await close().catch((err: unknown) => log.error({ err, name }, 'stop failed'));
    }
  };
  try {
    const redis = connectRedis(opts.redisUrl, 'admin');
    let redisErrors = 0;
    redis.on('error', (err) => {
      redisErrors++;
      log.warn({ event: 'redis.error', err: err.message }, 'redis connection error');
    });
    redis.on('ready', () => log.info({ event: 'redis.ready' }, 'redis connection ready'));
    closers.push({ name: 'redis client', close: () => redis.quit() });
    await redis.ping();

    const clickhouse = opts.clickhouse === false ? undefined : await openEventStore(config, log, closers);
    const ingester = parts.has('ingester') ? buildIngester(opts, clickhouse, closers) : undefined;

    const svc = createServices(config, redis, log, clickhouse);
    closers.push({ name: 'health probes', close: () => Promise.resolve(svc.health.stop()) });
    await svc.health.start();
    const conversions = new ConversionStore(redis);
    const postbacks = parts.has('postbacks') ? new PostbackWorker({ svc, store: conversions }) : undefined;
    const videoPoller = parts.has('video') ? new VideoPoller(svc) : undefined;
    const ops = parts.has('ops') ? createOpsServer(svc) : undefined;
    // `adnet backup` of the embedded default: its private Redis and chDB, through the admin that owns the chDB folder.
    const backups =
      ingester && clickhouse && !config.clickhouseUrl && !config.redisUrl
        ? backupResponder({ redis, clickhouse, database: config.clickhouseDatabase, dataDir: config.dataDir, ingester, log })
        : undefined;
    // The daily close reads earnings from the event store; a process without one leaves it to another.
    const closer = parts.has('payouts') && clickhouse ? payoutCloser(svc) : undefined;
    const server = createAdminServer(svc, { cabinetDir: opts.cabinetDir });
    const transport = createMailTransport({ smtpUrl: config.mail.smtpUrl, from: config.mail.from, outboxDir: join(config.dataDir, 'outbox') });
    closers.push({ name: 'mail transport', close: () => Promise.resolve(transport.close()) });
    const mail = { worker: new MailWorker({ svc, queue: svc.mailQueue, transport }), lowBalance: lowBalanceWatch(svc), transport };
    closers.push({ name: 'mail worker', close: async () => (await mail.worker.stop(), await mail.lowBalance.stop()) });

    return {
      svc,
      server,
      ingester,
      mail,
      async start(at) {
        if (parts.has('mail')) {
          mail.worker.start();
          mail.lowBalance.start();
          log.info(
            { event: 'mail.mode', mode: transport.mode },
            transport.mode === 'smtp' ? 'mail goes out over SMTP' : 'no SMTP_URL: mail is written to DATA_DIR/outbox',
          );
        }
        await ingester?.start();
        if (postbacks) {
          postbacks.start(config.postback.pollMs);
          closers.push({ name: 'postback worker', close: () => postbacks.stop() });
        }
        if (backups) {
          backups.start();
          closers.push({ name: 'backups', close: () => backups.stop() });
        }
        if (videoPoller) {
          videoPoller.start();
          closers.push({ name: 'video poller', close: () => videoPoller.stop() });
        }
        if (closer) {
          closer.start();
          closers.push({ name: 'payout close', close: () => closer.stop() });
        }
        if (ops) {
          svc.metrics.watch({
            eventStream: () => eventBacklog(redis),
            postbackQueue: () => conversions.depth(),
            ingester: ingester && (() => ingester),
            postbacks: postbacks && (() => postbacks.counts),
            redisErrors: () => redisErrors,
            mailQueue: () => svc.mailQueue.depth(),
            mail: parts.has('mail') ? () => mail.worker.counts : undefined,
          });
          closers.push({ name: 'metrics', close: () => ops.close() });
          const metricsPort = await ops.listen(config.metrics.port, config.metrics.host);
          log.info({ event: 'metrics.listening', address: `http://${config.metrics.host}:${metricsPort}/metrics` }, 'admin metrics listening');
        }
        closers.push({ name: 'admin', close: () => server.close() });
        return server.listen(at.port, at.host);
      },
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}
