import { EVENT_STREAM } from '@adnet/schemas/redis-keys';
import { compareStreamIds } from '@adnet/schemas/wire/stream-ids';
import type { Redis } from 'ioredis';

/** The consumer group ingesters read the event stream in. */
export const INGEST_GROUP = 'ingest';

export interface EventBacklog {
  /** Entries in the stream (each a batch of events). */
  length: number;
  /** Entries not yet delivered to the ingest group. */
  lag: number;
  /** Entries delivered but not yet acknowledged (in ClickHouse or being retried). */
  pending: number;
}

/** What waits for ClickHouse, read from the stream and its consumer group. */
export async function eventBacklog(redis: Redis): Promise<EventBacklog> {
  const [length, groups, newest] = await Promise.all([
    redis.xlen(EVENT_STREAM),
    (redis.xinfo('GROUPS', EVENT_STREAM) as Promise<unknown[][]>).catch(() => []),
    redis.xrevrange(EVENT_STREAM, '+', '-', 'COUNT', 1),
  ]);
  const g = groups.map((row) => Object.fromEntries(chunk(row))).find((x) => x.name === INGEST_GROUP);
  const pending = Number(g?.pending ?? 0);
  const delivered = typeof g?.['last-delivered-id'] === 'string' ? g['last-delivered-id'] : '0-0';
  const last = newest[0]?.[0];
  // Redis's own `lag` can be missing, and after a replica is promoted it was seen stuck above zero with
  // every entry delivered: the last delivered id against the newest entry is the reliable test.
  if (!last || compareStreamIds(delivered, last) >= 0) return { length, lag: 0, pending };
  const reported = g?.lag;
  if (typeof reported === 'number') return { length, lag: reported, pending };
  const undelivered = await redis.xrange(EVENT_STREAM, `(${delivered}`, '+', 'COUNT', 10_000);
  return { length, lag: undelivered.length, pending };
}

/**
 * How old the oldest entry not yet in ClickHouse is (ms, by Redis's clock, which stamped the entries' ids): the
 * first entry pending at the ingest group (delivered, not acknowledged) or else the first one after the
 * group's last delivered id; 0 when every entry is in. Without the group (no ingester ever ran), the stream's first.
 */
export async function oldestUningestedAgeMs(redis: Redis): Promise<number> {
  const groups = await (redis.xinfo('GROUPS', EVENT_STREAM) as Promise<unknown[][]>).catch(() => []);
  const g = groups.map((row) => Object.fromEntries(chunk(row))).find((x) => x.name === INGEST_GROUP);
  const delivered = typeof g?.['last-delivered-id'] === 'string' ? g['last-delivered-id'] : undefined;
  const [pending, next, time] = await Promise.all([
    g && Number(g.pending) > 0 ? redis.xpending(EVENT_STREAM, INGEST_GROUP) : Promise.resolve([]),
    redis.xrange(EVENT_STREAM, delivered ? `(${delivered}` : '-', '+', 'COUNT', 1),
    redis.time(),
  ]);
  const ids = [typeof pending[1] === 'string' ? pending[1] : undefined, next[0]?.[0]].filter(
    (id): id is string => id !== undefined,
  );
  if (ids.length === 0) return 0;
  const oldest = Math.min(...ids.map((id) => Number(id.split('-')[0])));
  const nowMs = Number(time[0]) * 1000 + Math.floor(Number(time[1]) / 1000);
  return Math.max(0, nowMs - oldest);
}

function chunk(row: unknown[]): [string, unknown][] {
  const out: [string, unknown][] = [];
  for (let i = 0; i + 1 < row.length; i += 2) out.push([String(row[i]), row[i + 1]]);
  return out;
}
