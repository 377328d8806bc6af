import { TRACKING_SECRET_KEY } from '@adnet/schemas/redis-keys';
import { connectRedis } from '@adnet/runtime/redis-connect';
import type { Redis } from '@adnet/runtime/redis-connect';
import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';

const redisOptions = {
  maxRetriesPerRequest: 2,
  enableAutoPipelining: true,
  retryStrategy: (n: number) => Math.min(50 * 2 ** Math.min(n, 6), 2_000),
};

/** The engine's connections: one for commands, one for the config mirror's subscription (a subscribed connection takes no commands). */
export interface EngineRedis {
  redis: Redis;
  subscriber: Redis;
}

export function connectEngineRedis(
  url: string,
  engineId: string,
  log: Logger,
  onError: (what: string) => (err: unknown) => void,
): EngineRedis {
  const redis = connectRedis(url, { ...redisOptions, connectionName: `engine-${engineId}` });
  const subscriber = connectRedis(url, { ...redisOptions, connectionName: `engine-${engineId}-sub` });
  for (const [name, client] of [
    ['redis', redis],
    ['redis-subscriber', subscriber],
  ] as const) {
    client.on('error', onError(name));
    client.on('ready', () => log.info({ event: 'redis.ready', connection: name }, 'redis connection ready'));
    client.on('end', () => log.warn({ event: 'redis.closed', connection: name }, 'redis connection closed'));
  }
  return { redis, subscriber };
}

/** TRACKING_SECRET, else the one the first engine made and kept in Redis. */
export async function trackingSecret(configured: string | undefined, redis: Redis): Promise<string> {
  if (configured) return configured;
  // First engine to start picks it; the rest read the same one.
  await redis.set(TRACKING_SECRET_KEY, randomBytes(32).toString('base64url'), 'NX');
  const secret = await redis.get(TRACKING_SECRET_KEY);
  if (!secret) throw new Error('tracking secret missing in Redis');
  return secret;
}
