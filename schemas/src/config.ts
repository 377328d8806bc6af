import { z } from 'zod';
import { adminSlice } from './config/admin.ts';
import { aiSlice } from './config/ai.ts';
import { billingSlice } from './config/billing.ts';
import { demandSlice } from './config/demand.ts';
import { engineSlice } from './config/engine.ts';
import { eventsSlice } from './config/events.ts';
import { mailSlice } from './config/mail.ts';
import { metricsSlice } from './config/metrics.ts';
import { postbackSlice } from './config/postback.ts';
import { processesSlice } from './config/processes.ts';
import { pushSlice } from './config/push.ts';
import { rulesSlice } from './config/rules.ts';
import { serverSlice } from './config/server.ts';
import { statsSlice } from './config/stats.ts';
import { storageSlice } from './config/storage.ts';
import { verifySlice } from './config/verify.ts';
import { videoSlice } from './config/video.ts';

export type { AdminSlice } from './config/admin.ts';
export type { AiConfig } from './config/ai.ts';
export type { BillingConfig } from './config/billing.ts';
export type { DemandConfig } from './config/demand.ts';
export type { EngineSlice } from './config/engine.ts';
export type { EventsConfig } from './config/events.ts';
export type { MailConfig } from './config/mail.ts';
export type { MetricsConfig } from './config/metrics.ts';
export type { PostbackConfig } from './config/postback.ts';
export type { ProcessesConfig } from './config/processes.ts';
export type { PushConfig } from './config/push.ts';
export type { RulesConfig } from './config/rules.ts';
export type { ServerConfig } from './config/server.ts';
export type { StatsConfig } from './config/stats.ts';
export type { StorageConfig } from './config/storage.ts';
export type { VerifyConfig } from './config/verify.ts';
export type { VideoConfig } from './config/video.ts';

/**
 * The configuration by concern: each slice is a zod object over its environment variables (default and
 * description beside each, docs/configuration.md is generated from them) whose parse gives the slice, so a
 * setting is declared once. The order is the page's.
 */
export const CONFIG_SLICES = {
  server: serverSlice,
  metrics: metricsSlice,
  storage: storageSlice,
  processes: processesSlice,
  engine: engineSlice,
  events: eventsSlice,
  demand: demandSlice,
  push: pushSlice,
  admin: adminSlice,
  stats: statsSlice,
  verify: verifySlice,
  postback: postbackSlice,
  rules: rulesSlice,
  billing: billingSlice,
  mail: mailSlice,
  ai: aiSlice,
  video: videoSlice,
} as const;
type Slices = typeof CONFIG_SLICES;
export type SliceName = keyof Slices;

/** The whole configuration: what the launcher reads. Each service takes only its slices. */
export type Config = { readonly [K in SliceName]: z.output<Slices[K]> };

/** The slices an engine process reads (`engine/src/main.ts`). */
export const ENGINE_SLICES = [
  'server',
  'metrics',
  'storage',
  'processes',
  'engine',
  'events',
  'demand',
  'push',
] as const satisfies readonly SliceName[];
export type EngineConfig = Pick<Config, (typeof ENGINE_SLICES)[number]>;

/** The slices the admin reads (`createAdmin`). */
export const ADMIN_SLICES = [
  'server',
  'metrics',
  'storage',
  'events',
  'demand',
  'admin',
  'stats',
  'verify',
  'postback',
  'rules',
  'billing',
  'mail',
  'ai',
  'video',
] as const satisfies readonly SliceName[];
export type AdminConfig = Pick<Config, (typeof ADMIN_SLICES)[number]>;

/**
 * Every environment variable the product reads, with its default: the slices' variables side by side. Parsed
 * once at start (`loadConfig`); nothing else reads process.env.
 */
export const envSchema = z.object({
  ...serverSlice.in.shape,
  ...metricsSlice.in.shape,
  ...storageSlice.in.shape,
  ...processesSlice.in.shape,
  ...engineSlice.in.shape,
  ...eventsSlice.in.shape,
  ...demandSlice.in.shape,
  ...pushSlice.in.shape,
  ...adminSlice.in.shape,
  ...statsSlice.in.shape,
  ...verifySlice.in.shape,
  ...postbackSlice.in.shape,
  ...rulesSlice.in.shape,
  ...billingSlice.in.shape,
  ...mailSlice.in.shape,
  ...aiSlice.in.shape,
  ...videoSlice.in.shape,
});
export type EnvInput = z.input<typeof envSchema>;

export class ConfigError extends Error {
  constructor(readonly problems: Record<string, string>) {
    super(
      'Invalid configuration: ' +
        Object.entries(problems)
          .map(([name, msg]) => `${name}: ${msg}`)
          .join('; '),
    );
  }
}

/** Validates the environment, slice by slice; a wrong value throws a ConfigError naming the variable. */
export function loadConfig(env: Record<string, string | undefined>): Config {
  // Empty strings mean "unset", as shells commonly export them.
  const cleaned = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const problems: Record<string, string> = {};
  const config: Record<string, unknown> = {};
  for (const [name, slice] of Object.entries(CONFIG_SLICES)) {
    const parsed = slice.safeParse(cleaned);
    if (parsed.success) config[name] = parsed.data;
    else for (const issue of parsed.error.issues) problems[String(issue.path[0] ?? 'env')] ??= issue.message;
  }
  if (Object.keys(problems).length > 0) throw new ConfigError(problems);
  return config as Config;
}

/** The named slices of a loaded configuration and nothing else: what a service is handed. */
export function pickSlices<K extends SliceName>(config: Config, names: readonly K[]): Pick<Config, K> {
  return Object.fromEntries(names.map((name) => [name, config[name]])) as Pick<Config, K>;
}
