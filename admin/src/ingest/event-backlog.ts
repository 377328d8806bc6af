import { EVENT_STREAM } from '@adnet/schemas/redis-keys';
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

/** Orders stream ids (`<ms>-<seq>`). */
function compareStreamIds(a: string, b: string): number {
  const [am = 0, as = 0] = a.split('-').map(Number);
  const [bm = 0, bs = 0] = b.split('-').map(Number);
  return am - bm || as - bs;
}

function chunk(row: unknown[]): [string, unknown][] {
  const out: [string, unknown][] = [];
  for (let i = 0; i + 1 < row.length; i += 2) out.push([String(row[i]), row[i + 1]]);
  return out;
}
