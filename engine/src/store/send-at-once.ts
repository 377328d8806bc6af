import type { Redis } from 'ioredis';

/**
 * Keeps ioredis's auto-pipelining off `commands`: the request paths' scripts, each sent once per request
 * or once per event-loop turn. Auto-pipelining would wrap the commands of each turn in a pipeline of
 * their own, sent a tick later, which cost the click and beacon paths more than the writes it saves
 * (bench/results/performance.md, "ioredis's pipeline off the request paths"). The background passes'
 * many commands a turn stay auto-pipelined.
 */
export function sendAtOnce(redis: Redis, commands: readonly string[]): void {
  // A new list, never a push: a client given no list of its own holds ioredis's default one, shared by every client.
  const ignored = redis.options.autoPipeliningIgnoredCommands ?? [];
  redis.options.autoPipeliningIgnoredCommands = [...ignored, ...commands.filter((c) => !ignored.includes(c))];
}
