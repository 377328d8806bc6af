import { Redis } from 'ioredis';

export type { Redis };

/** A client with the product's defaults: bounded offline queue, retries forever with backoff. */
export function connectRedis(url: string, name: string): Redis {
  return new Redis(url, {
    connectionName: name,
    maxRetriesPerRequest: 3,
    enableAutoPipelining: true,
    retryStrategy: (times) => Math.min(50 * 2 ** Math.min(times, 6), 2_000),
  });
}
