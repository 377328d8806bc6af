import type { MailPorts } from '../mail/mail-worker.ts';
import type { LowBalancePorts } from '../mail/low-balance-watch.ts';
import type { OpsPorts } from '../http/ops-server.ts';
import type { PaymentPorts } from '../payments/http.ts';
import type { PayoutPorts } from '../payments/payout-close.ts';
import type { PostbackPorts } from '../postback/postback-worker.ts';
import type { RulePorts } from '../rules/rule-evaluator.ts';
import { currentModerationEta } from '../repos/creatives.ts';
import type { Services } from '../services.ts';
import type { VideoPorts } from '../video/poller.ts';
import type { TargetCpaPorts } from '../cpa/cpa-pass.ts';

/** Each background worker's own port: what it uses and nothing else of the process's services. */
export interface WorkerPorts {
  mail: MailPorts;
  lowBalance: LowBalancePorts;
  postbacks: PostbackPorts;
  video: VideoPorts;
  payouts: PayoutPorts;
  payments: PaymentPorts;
  ops: OpsPorts;
  targetCpa: TargetCpaPorts;
  rules: RulePorts;
}

/** Picked field by field, the configuration slice by slice, so a worker cannot reach what its port leaves out even by a cast. */
export function workerPorts(svc: Services): WorkerPorts {
  const { config, log } = svc;
  return {
    mail: {
      config: { mail: config.mail, server: config.server },
      log,
      users: svc.users,
      oneTimeTokens: svc.oneTimeTokens,
      moderationEta: () => currentModerationEta(svc),
    },
    lowBalance: {
      config: { mail: config.mail },
      log,
      lowBalance: svc.lowBalance,
      ledger: svc.ledger,
      notifier: svc.notifier,
    },
    postbacks: { config: { postback: config.postback }, log, users: svc.users, notifier: svc.notifier },
    video: {
      config: { video: config.video },
      log,
      videoJobs: svc.videoJobs,
      videoProvider: svc.videoProvider,
      ledger: svc.ledger,
    },
    payouts: {
      config: { billing: config.billing, stats: config.stats },
      log,
      clickhouse: svc.clickhouse,
      payouts: svc.payouts,
    },
    payments: {
      config: { billing: config.billing },
      log,
      deposits: svc.deposits,
      paymentProvider: svc.paymentProvider,
    },
    ops: { log, metrics: svc.metrics, health: svc.health },
    targetCpa: { redis: svc.redis, configStore: svc.configStore, log, intervalMs: config.admin.targetCpaPassMs },
    rules: {
      config: { stats: config.stats, rules: config.rules },
      log,
      clickhouse: svc.clickhouse,
      configStore: svc.configStore,
      rules: svc.rules,
      notifier: svc.notifier,
    },
  };
}
