import type { Redis } from 'ioredis';
import { movedKey } from '@adnet/schemas/redis-keys';

/**
 * Marks of what moved: every writer of a campaign's rotation counts or of its spend today also adds the
 * campaign to the set of the current time bucket (redis-keys.ts, `movedKey`), and the engines' periodic
 * passes (the rotation's refresh, the pacer's tick) read back only the campaigns marked since their last
 * pass. The mark is written after the change it marks, never instead of it: a pass that reads the mark
 * reads the change too.
 */
export type MovedKind = 'rotation' | 'spent';

/** Width of one bucket of marks. */
export const MOVED_BUCKET_MS = 10_000;
/**
 * How far before its last read a pass reads the marks again. A mark can land after the pass that should have
 * seen it read its bucket: a writer's clock may run behind the reader's, and a write waits out a failover (the
 * clients retry for seconds). Both delay a mark by far less than this; the cost is re-reading, each pass, the
 * campaigns that moved in the last 30 s.
 */
export const MOVED_MARGIN_MS = 30_000;
/**
 * How long a bucket is kept. A pass whose last read is older than MOVED_READABLE_MS (a tick configured longer,
 * an engine stalled, Redis out for minutes) cannot trust the marks of its window to be there, and reads everything.
 */
export const MOVED_TTL_MS = 120_000;
export const MOVED_READABLE_MS = MOVED_TTL_MS - MOVED_MARGIN_MS - 2 * MOVED_BUCKET_MS;
/** Members per SADD: one command of 100 000 arguments would be built and parsed in one piece. */
const MARK_CHUNK = 10_000;

const bucketOf = (ms: number): number => Math.floor(ms / MOVED_BUCKET_MS);

/** The bucket keys covering [from, to] (ms since the epoch). */
export function movedKeys(kind: MovedKind, from: number, to: number): string[] {
  const keys: string[] = [];
  for (let b = bucketOf(from); b <= bucketOf(to); b++) keys.push(movedKey(kind, b));
  return keys;
}

/** Marks the campaigns as moved now. One pipeline on one key (one slot on a Redis Cluster). */
export async function markMoved(
  redis: Redis,
  kind: MovedKind,
  campaigns: Iterable<number>,
  now = Date.now(),
): Promise<void> {
  const key = movedKey(kind, bucketOf(now));
  const all = [...campaigns];
  if (!all.length) return;
  const p = redis.pipeline();
  for (let at = 0; at < all.length; at += MARK_CHUNK) p.sadd(key, ...all.slice(at, at + MARK_CHUNK));
  p.pexpire(key, MOVED_TTL_MS);
  for (const [err] of (await p.exec()) ?? []) if (err) throw err;
}

/** The campaigns marked in [from, to]: one SUNION, the buckets of a kind sharing a slot. */
export async function readMoved(redis: Redis, kind: MovedKind, from: number, to: number): Promise<Set<number>> {
  const keys = movedKeys(kind, from, to);
  const moved = new Set<number>();
  if (!keys.length) return moved;
  for (const id of await redis.sunion(...keys)) moved.add(Number(id));
  return moved;
}
