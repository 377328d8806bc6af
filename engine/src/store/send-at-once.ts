import type { Redis } from 'ioredis';

/**
 * Defines a script the request paths send, one per request or one per event-loop turn, and keeps ioredis's
 * auto-pipelining off it: auto-pipelining would wrap each turn's calls in a pipeline of their own, sent a
 * tick later, which cost the click and beacon paths more than the writes it saves (bench/results/ab-history.md,
 * "ioredis's pipeline off the request paths"). The background passes' many commands a turn stay auto-pipelined.
 * A cluster client does not auto-pipeline (docs/deployment.md), so there this changes nothing.
 */
export function defineRequestScript(redis: Redis, name: string, lua: string): void {
  redis.defineCommand(name, { lua });
  const ignored = redis.options.autoPipeliningIgnoredCommands ?? [];
  // A new list, never a push: a client given no list of its own holds ioredis's default one, shared by every client.
  if (!ignored.includes(name)) redis.options.autoPipeliningIgnoredCommands = [...ignored, name];
}
