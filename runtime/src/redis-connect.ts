import { Cluster, Redis } from 'ioredis';
import type { RedisOptions } from 'ioredis';
import { parseRedisTarget } from '@adnet/schemas/redis-target';

export type { Redis };

/**
 * Opens a client for REDIS_URL: one server, or a Redis Cluster
 * (`redis+cluster://host:port,host:port`). Both the admin and the engines
 * connect through here so they read the same form.
 *
 * A Cluster client is returned under the Redis type: ioredis gives both the
 * same command interface (including scripts from defineCommand), and every key
 * the product uses carries a hash tag so each script or MULTI stays in one
 * slot. Only connection-level calls differ (`duplicate`), and the product does
 * not use them: it opens each extra connection through this function.
 */
export function connectRedis(url: string, options: RedisOptions): Redis {
  const target = parseRedisTarget(url);
  if (!target) throw new Error('REDIS_URL is not a redis://, rediss:// or redis+cluster:// address');
  if (target.kind === 'single') return new Redis(url, options);
  const { maxRetriesPerRequest, connectionName, retryStrategy, enableAutoPipelining: _unused, ...rest } = options;
  const cluster = new Cluster(target.nodes, {
    // Off on a cluster: ioredis groups auto-pipelined commands by the slot of the first argument, which for
    // scripts (defineCommand) is the key count, so a script can land in another node's pipeline and fail
    // with "All keys in the pipeline should belong to the same slots allocation group".
    enableAutoPipelining: false,
    // Failover: retry while the cluster elects a new master and clients learn the new slot map.
    clusterRetryStrategy: (times) => (retryStrategy ? (retryStrategy(times) ?? null) : Math.min(100 * times, 2_000)),
    retryDelayOnFailover: 200,
    retryDelayOnClusterDown: 300,
    retryDelayOnTryAgain: 200,
    slotsRefreshTimeout: 2_000,
    redisOptions: {
      ...rest,
      connectionName,
      // Requests wait through a failover rather than fail after a few tries.
      maxRetriesPerRequest: maxRetriesPerRequest === null ? null : Math.max(maxRetriesPerRequest ?? 3, 20),
      username: target.username,
      password: target.password,
      ...(target.tls ? { tls: {} } : {}),
    },
  });
  return cluster as unknown as Redis;
}
