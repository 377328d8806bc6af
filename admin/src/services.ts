import type { AdminConfig } from '@adnet/schemas/config';
import { join } from 'node:path';
import { createCopyProvider } from './ai/copy-provider.ts';
import { PasswordHasher } from './auth/password.ts';
import type { CopyProvider } from './ai/copy-provider.ts';
import type { ClickHouseClient } from './clickhouse/open.ts';
import type { Logger } from './log.ts';
import { ConfigStore } from './storage/config-store.ts';
import { LedgerStore } from './storage/ledger.ts';
import { MediaStore } from './storage/media-store.ts';
import { RateLimiter } from './storage/rate-limit.ts';
import { SignInBackoff } from './storage/signin-backoff.ts';
import type { Redis } from './storage/redis.ts';
import { TokenStore } from './storage/tokens.ts';
import { UserStore } from './storage/users.ts';
import { ApiKeyStore } from './storage/api-keys.ts';
import { OneTimeTokens } from './storage/one-time-tokens.ts';
import { MailQueue } from './mail/mail-queue.ts';
import { LowBalanceStore } from './storage/low-balance.ts';
import { Notifier } from './mail/notifier.ts';
import { AdminMetrics } from './observability/admin-metrics.ts';
import { AdminHealth } from './observability/health.ts';
import { VideoJobStore } from './video/job-store.ts';
import { DemandHealth } from './storage/demand-health.ts';
import { CampaignSpend } from './storage/campaign-spend.ts';
import { ConfidentialSellers } from './storage/confidential-sellers.ts';
import { ConversionStore } from './postback/conversion-store.ts';
import { RuleStore } from './storage/rule-store.ts';
import { createVideoProvider } from './video/providers.ts';
import type { VideoProvider } from './video/providers.ts';
import { DepositStore } from './payments/deposit-store.ts';
import { PayoutStore } from './payments/payout-store.ts';
import { createPaymentProvider } from './payments/providers.ts';
import type { PaymentProvider } from './payments/providers.ts';

/** Everything a procedure may use; built once per process and shared by both doors. */
export interface Services {
  /** The admin's slices of the configuration (ADMIN_SLICES). */
  config: AdminConfig;
  log: Logger;
  redis: Redis;
  configStore: ConfigStore;
  users: UserStore;
  tokens: TokenStore;
  ledger: LedgerStore;
  limiter: RateLimiter;
  passwords: PasswordHasher;
  signInBackoff: SignInBackoff;
  media: MediaStore;
  copyProvider: CopyProvider;
  videoProvider: VideoProvider;
  videoJobs: VideoJobStore;
  metrics: AdminMetrics;
  apiKeys: ApiKeyStore;
  oneTimeTokens: OneTimeTokens;
  mailQueue: MailQueue;
  lowBalance: LowBalanceStore;
  /** Queues email notices; never throws (mail/notifier.ts). */
  notifier: Notifier;
  /** Conversions and their outgoing postback attempts. */
  conversions: ConversionStore;
  /** Advertisers' automated rules, their log and the evaluator's marks (docs/rules.md). */
  rules: RuleStore;
  /** The campaigns' budget pools and lifetime spend, which the engines count. */
  spend: CampaignSpend;
  /** Publishers sellers.json lists as confidential. */
  confidentialSellers: ConfidentialSellers;
  /** The engines' counts of each demand partner, read for the admin's lists and statistics. */
  demandHealth: DemandHealth;
  /** The event store; absent in processes that do not read statistics. */
  clickhouse: ClickHouseClient | undefined;
  /** Redis, ClickHouse and the statistics' lag, probed in the background (started by createAdmin) for /readyz. */
  health: AdminHealth;
  // Billing (docs/billing.md).
  deposits: DepositStore;
  paymentProvider: PaymentProvider;
  payouts: PayoutStore;
}

export function createServices(
  config: AdminConfig,
  redis: Redis,
  log: Logger,
  clickhouse?: ClickHouseClient,
): Services {
  const deposits = new DepositStore(redis);
  const mailQueue = new MailQueue(redis);
  const metrics = new AdminMetrics();
  return {
    apiKeys: new ApiKeyStore(redis),
    oneTimeTokens: new OneTimeTokens(redis),
    mailQueue,
    lowBalance: new LowBalanceStore(redis),
    notifier: new Notifier(mailQueue, log),
    config,
    log,
    redis,
    configStore: new ConfigStore(redis, config.admin.changeLogMaxLen),
    users: new UserStore(redis),
    tokens: new TokenStore(redis),
    ledger: new LedgerStore(redis),
    limiter: new RateLimiter(redis),
    passwords: new PasswordHasher(config.admin.passwordScrypt),
    signInBackoff: new SignInBackoff(redis),
    media: new MediaStore(join(config.storage.dataDir, 'media')),
    copyProvider: createCopyProvider(config.ai),
    videoProvider: createVideoProvider(config.video, config.server.adBaseUrl),
    videoJobs: new VideoJobStore(redis),
    conversions: new ConversionStore(redis),
    rules: new RuleStore(redis),
    spend: new CampaignSpend(redis),
    confidentialSellers: new ConfidentialSellers(redis),
    demandHealth: new DemandHealth(redis),
    clickhouse,
    health: new AdminHealth({
      redis,
      clickhouse,
      statsLagNoticeMs: config.stats.lagNoticeMs,
      onClickHouseError: () => metrics.error('clickhouse'),
    }),
    metrics,
    deposits,
    paymentProvider: createPaymentProvider(config.billing, config.server.baseUrl, deposits),
    payouts: new PayoutStore(redis),
  };
}
