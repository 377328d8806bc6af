// `pnpm start`: the whole product on its embedded defaults (or REDIS_URL /
// CLICKHOUSE_URL when set), on one base URL.
import { createAdminServer } from '../http/server.ts';
import { openClickHouse } from '../launch/clickhouse.ts';
import { ensurePrivateRedis } from '../launch/private-redis.ts';
import type { RedisTarget } from '../launch/private-redis.ts';
import { createLogger } from '../log.ts';
import { createServices } from '../services.ts';
import { connectRedis } from '../storage/redis.ts';
import { VideoPoller } from '../video/poller.ts';
import { readConfigOrExit } from './read-config.ts';

const config = readConfigOrExit();
const log = createLogger(config.logLevel);

let redisTarget: RedisTarget;
try {
  redisTarget = config.redisUrl
    ? { url: config.redisUrl, owned: false, stop: () => Promise.resolve() }
    : await ensurePrivateRedis(config.dataDir);
} catch (e) {
  process.stderr.write(`${(e as Error).message}\n`);
  process.exit(2);
}
const redis = connectRedis(redisTarget.url, 'admin');
redis.on('error', (err) => log.warn({ err: err.message }, 'redis connection error'));
await redis.ping();
const clickhouse = await openClickHouse(config);
await clickhouse.command({ query: 'CREATE DATABASE IF NOT EXISTS adnet' });

const svc = createServices(config, redis, log, clickhouse);
const admin = createAdminServer(svc);
const port = await admin.listen(config.port, config.host);
const videoPoller = new VideoPoller(svc);
videoPoller.start();
const baseUrl = config.baseUrl.replace(`:${config.port}`, `:${port}`);

log.info({ event: 'started', baseUrl, redis: config.redisUrl ? 'external' : 'private', clickhouse: config.clickhouseUrl ? 'server' : 'chdb' }, 'started');
process.stdout.write(
  [
    '',
    `  Ad network is up at ${baseUrl}`,
    `  API reference: ${baseUrl}/docs/api   OpenAPI: ${baseUrl}/openapi.json`,
    '',
    '  Create the first accounts (in another terminal):',
    '    npx -y pnpm@10 adnet user:create --role admin --email admin@example.com --password <password>',
    '    npx -y pnpm@10 adnet user:create --role advertiser --email adv@example.com --password <password>',
    '    npx -y pnpm@10 adnet balance:credit --email adv@example.com --cents 10000',
    `  or sign up: curl -X POST ${baseUrl}/api/auth/register -H 'content-type: application/json' \\`,
    `    -d '{"email":"pub@example.com","password":"<password>","role":"publisher"}'`,
    '',
  ].join('\n') + '\n',
);

let stopping = false;
async function shutdown(signal: string): Promise<void> {
  if (stopping) return;
  stopping = true;
  log.info({ event: 'stopping', signal }, 'stopping');
  await admin.close();
  await videoPoller.stop();
  await clickhouse.close();
  await redis.quit().catch(() => undefined);
  // The private Redis belongs to `pnpm start`, even one it found left over from a crash.
  if (!config.redisUrl) await redisTarget.stop();
  log.info({ event: 'stopped' }, 'stopped');
  process.exit(0);
}
process.on('SIGTERM', () => void shutdown('SIGTERM'));
process.on('SIGINT', () => void shutdown('SIGINT'));
