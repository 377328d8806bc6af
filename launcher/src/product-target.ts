// Which product a CLI command acts on, found without starting anything: the CLI never opens a database
// that no product reads (a Redis of its own under a DATA_DIR where nothing runs would take the command's
// writes and show them to no one).
import { resolve } from 'node:path';
import type { Config } from '@adnet/schemas/config';
import { privateRedisUrl, redisAnswers } from './private-redis.ts';
import { configWith } from './read-config.ts';
import { runningProduct } from './run-file.ts';
import type { RunFile } from './run-file.ts';

export const PNPM = 'npx -y pnpm@10.34.8';

export interface ProductTarget {
  redisUrl: string;
  /** The configuration to act with: the running product's base URLs and data directory when there is one. */
  config: Config;
  product: RunFile | undefined;
  /** One line for the operator: what the command acts on. */
  description: string;
}

/** The command cannot act on any product; `message` says why and what to run. */
export class NoProductError extends Error {}

/** `argv` as a shell line, a password replaced by a placeholder (the line is printed). */
export function shellLine(argv: readonly string[]): string {
  return argv
    .map((a, i) => (argv[i - 1] === '--password' ? '<password>' : a))
    .map((a) => (a === '<password>' || /^[\w@%+=:,./-]+$/.test(a) ? a : `'${a.replace(/'/g, `'\\''`)}'`))
    .join(' ');
}

/** The URL without its password, for messages. */
const redacted = (url: string): string =>
  url.replace(/\/\/([^@/]*)@/, (_, auth: string) => (auth.includes(':') ? '//***@' : `//${auth}@`));

/**
 * The product the CLI acts on. With REDIS_URL: that Redis (with the base URLs of the product running on
 * DATA_DIR, if any, else the configured ones). Without: the product running on DATA_DIR and its private
 * Redis; none there is a NoProductError naming the command to run, and nothing is created.
 */
export async function productTarget(config: Config, argv: readonly string[]): Promise<ProductTarget> {
  const dataDir = resolve(config.storage.dataDir);
  const run = runningProduct(dataDir);
  const again = `DATA_DIR=${dataDir} ${PNPM} adnet ${shellLine(argv)}`;
  const withRun = (r: RunFile): Config =>
    configWith({ DATA_DIR: r.dataDir, PUBLIC_BASE_URL: r.baseUrl, PUBLIC_AD_BASE_URL: r.adBaseUrl });
  if (config.storage.redisUrl) {
    if (run?.redis === 'private') {
      throw new NoProductError(
        `REDIS_URL is set, but the product at ${run.baseUrl} (pid ${run.pid}, DATA_DIR=${dataDir}) keeps its data in its private Redis: ` +
          `this command would write where it never reads. Nothing was changed. To act on that product, run without REDIS_URL:\n  ${again}`,
      );
    }
    return {
      redisUrl: config.storage.redisUrl,
      config: run ? withRun(run) : config,
      product: run,
      description: run
        ? `the product at ${run.baseUrl} (pid ${run.pid}, DATA_DIR=${dataDir}, Redis from REDIS_URL)`
        : `the Redis at ${redacted(config.storage.redisUrl)} (REDIS_URL; no product runs with DATA_DIR=${dataDir}, links use ${config.server.baseUrl})`,
    };
  }
  if (!run) {
    throw new NoProductError(
      `No product runs with DATA_DIR=${dataDir}: this command would write to a database that no product reads. Nothing was changed.\n` +
        `Start the product first (or name the DATA_DIR of the one that runs; REDIS_URL for a Redis of your own):\n` +
        `  DATA_DIR=${dataDir} ${PNPM} start\n` +
        `then, in another terminal:\n  ${again}`,
    );
  }
  if (run.redis === 'external') {
    throw new NoProductError(
      `The product at ${run.baseUrl} (pid ${run.pid}, DATA_DIR=${dataDir}) uses the Redis its REDIS_URL names. Nothing was changed. ` +
        `Run the command with the same REDIS_URL:\n  REDIS_URL=redis://... ${again}`,
    );
  }
  const url = await privateRedisUrl(dataDir);
  if (!url || !(await redisAnswers(url))) {
    throw new NoProductError(
      `The product at ${run.baseUrl} (pid ${run.pid}, DATA_DIR=${dataDir}) runs, but its Redis (${dataDir}/redis) does not answer. Nothing was changed. ` +
        `Restart the product:\n  DATA_DIR=${dataDir} ${PNPM} start`,
    );
  }
  return {
    redisUrl: url,
    config: withRun(run),
    product: run,
    description: `the product at ${run.baseUrl} (pid ${run.pid}, DATA_DIR=${dataDir})`,
  };
}
