import { connectRedis as connect } from '@adnet/runtime/redis-connect';
import type { Redis } from '@adnet/runtime/redis-connect';

export type { Redis };

/** A client with the product's defaults: bounded retries per request, reconnects forever with backoff. */
export function connectRedis(
  url: string,
  name: string,
  options: { enableAutoPipelining?: boolean; commandTimeout?: number } = {},
): Redis {
  return connect(url, {
    connectionName: name,
    commandTimeout: options.commandTimeout,
    maxRetriesPerRequest: 3,
    enableAutoPipelining: options.enableAutoPipelining ?? true,
    retryStrategy: (times) => Math.min(50 * 2 ** Math.min(times, 6), 2_000),
  });
}
