import type { AdminConfig } from '@adnet/schemas/config';
import { join } from 'node:path';
import type { Periodic } from '@adnet/runtime/periodic';
import { backupResponder } from '../backup/backup-responder.ts';
import type { ClickHouseClient } from '../clickhouse/open.ts';
import { createOpsServer } from '../http/ops-server.ts';
import { eventBacklog } from '../ingest/event-backlog.ts';
import type { Ingester } from '../ingest/ingester.ts';
import type { Logger } from '../log.ts';
import { lowBalanceWatch } from '../mail/low-balance-watch.ts';
import type { MailQueue } from '../mail/mail-queue.ts';
import { MailWorker } from '../mail/mail-worker.ts';
import { createMailTransport } from '../mail/transport.ts';
import type { MailTransport } from '../mail/transport.ts';
import { payoutCloser } from '../payments/payout-close.ts';
import { PostbackWorker } from '../postback/postback-worker.ts';
import { ruleEvaluator } from '../rules/rule-evaluator.ts';
import type { Services } from '../services.ts';
import type { Redis } from '../storage/redis.ts';
import { VideoPoller } from '../video/poller.ts';
import { targetCpaPass } from '../cpa/cpa-pass.ts';
import type { WorkerPorts } from './ports.ts';
import type { StopStep, Stopper } from './stop-order.ts';

/** What runs beside the HTTP server: the background workers and the operators' address. */
export type AdminPart = 'ingester' | 'postbacks' | 'video' | 'ops' | 'payouts' | 'mail' | 'target-cpa' | 'rules';
export const ADMIN_PARTS: readonly AdminPart[] = [
  'ingester',
  'postbacks',
  'video',
  'ops',
  'payouts',
  'mail',
  'target-cpa',
  'rules',
];

export interface Mail {
  worker: MailWorker;
  lowBalance: Periodic;
  transport: MailTransport;
}

/** Always built (tests drive the worker and the watch with `runOnce`); started only when 'mail' is a part. */
export function buildMail(
  config: Pick<AdminConfig, 'mail' | 'storage'>,
  ports: WorkerPorts,
  queue: MailQueue,
  stopper: Stopper,
): Mail {
  const transport = createMailTransport({
    smtpUrl: config.mail.smtpUrl,
    from: config.mail.from,
    outboxDir: join(config.storage.dataDir, 'outbox'),
  });
  stopper.add('mail transport', () => Promise.resolve(transport.close()));
  const mail = {
    worker: new MailWorker({ svc: ports.mail, queue, transport }),
    lowBalance: lowBalanceWatch(ports.lowBalance),
    transport,
  };
  stopper.add('mail worker', async () => (await mail.worker.stop(), await mail.lowBalance.stop()));
  return mail;
}

export interface PartsWiring {
  config: Pick<AdminConfig, 'stats' | 'storage' | 'postback' | 'metrics'>;
  log: Logger;
  parts: ReadonlySet<AdminPart>;
  ports: WorkerPorts;
  redis: Redis;
  redisErrors: () => number;
  clickhouse: ClickHouseClient | undefined;
  ingester: Ingester | undefined;
  mail: Mail;
  /** The stores the gauges read and the postback worker drains. */
  svc: Pick<Services, 'mailQueue' | 'conversions' | 'metrics'>;
}

/** A part started by `start()`; `step` names its place in STOP_ORDER when it has a stop of its own. */
export interface StartedPart {
  step?: StopStep;
  start(): unknown;
  stop?: () => Promise<unknown>;
}

/** The parts in the order they start: each row is built only when its part is wanted and what it needs is here. */
export function backgroundParts(w: PartsWiring): StartedPart[] {
  const { config, log, parts, ports, redis, clickhouse, ingester, mail } = w;
  const { conversions, mailQueue, metrics } = w.svc;
  const postbacks = parts.has('postbacks')
    ? new PostbackWorker({ svc: ports.postbacks, store: conversions })
    : undefined;
  // `adnet backup` of the embedded default: its private Redis and chDB, through the admin that owns the chDB folder.
  const backups =
    ingester && clickhouse && !config.stats.clickhouseUrl && !config.storage.redisUrl
      ? backupResponder({
          redis,
          clickhouse,
          database: config.stats.database,
          dataDir: config.storage.dataDir,
          ingester,
          log,
        })
      : undefined;
  const video = parts.has('video') ? new VideoPoller(ports.video) : undefined;
  // The daily close reads earnings from the event store; a process without one leaves it to another.
  const closer = parts.has('payouts') && clickhouse ? payoutCloser(ports.payouts) : undefined;
  const ops = parts.has('ops') ? createOpsServer(ports.ops) : undefined;
  const targetCpa = parts.has('target-cpa') ? targetCpaPass(ports.targetCpa) : undefined;
  // Rules read the statistics; a process without the event store leaves them to another.
  const rules = parts.has('rules') && clickhouse ? ruleEvaluator(ports.rules) : undefined;
  const rows: (StartedPart | undefined)[] = [
    parts.has('mail') ? { start: () => startMail(mail, log) } : undefined,
    ingester && { start: () => ingester.start() },
    postbacks && {
      step: 'postback worker',
      start: () => postbacks.start(config.postback.pollMs),
      stop: () => postbacks.stop(),
    },
    backups && { step: 'backups', start: () => backups.start(), stop: () => backups.stop() },
    video && { step: 'video poller', start: () => video.start(), stop: () => video.stop() },
    closer && { step: 'payout close', start: () => closer.start(), stop: () => closer.stop() },
    targetCpa && { step: 'target cpa', start: () => targetCpa.start(), stop: () => targetCpa.stop() },
    rules && { step: 'rule evaluator', start: () => rules.start(), stop: () => rules.stop() },
    ops && {
      step: 'metrics',
      stop: () => ops.close(),
      start: async () => {
        metrics.watch({
          eventStream: () => eventBacklog(redis),
          postbackQueue: () => conversions.depth(),
          ingester: ingester && (() => ingester),
          postbacks: postbacks && (() => postbacks.counts),
          redisErrors: w.redisErrors,
          mailQueue: () => mailQueue.depth(),
          mail: parts.has('mail') ? () => mail.worker.counts : undefined,
        });
        const port = await ops.listen(config.metrics.port, config.metrics.host);
        log.info(
          { event: 'metrics.listening', address: `http://${config.metrics.host}:${port}/metrics` },
          'admin metrics listening',
        );
      },
    },
  ];
  return rows.filter((r): r is StartedPart => r !== undefined);
}

function startMail(mail: Mail, log: Logger): void {
  mail.worker.start();
  mail.lowBalance.start();
  log.info(
    { event: 'mail.mode', mode: mail.transport.mode },
    mail.transport.mode === 'smtp' ? 'mail goes out over SMTP' : 'no SMTP_URL: mail is written to DATA_DIR/outbox',
  );
}
