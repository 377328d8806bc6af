import { EVENT_DEAD_LETTERS, EVENT_STREAM } from '@adnet/schemas/redis-keys';
import type { Redis } from 'ioredis';

/** One dead letter (`events:dead`) as an operator reads it. */
export interface DeadLetter {
  /** The dead letter's own id in `events:dead`. */
  deadId: string;
  /** The stream entry it came from. */
  entryId: string;
  error: string;
  /** Events it holds, when the ingester knew them (an entry's refused events); absent for an unreadable entry. */
  n: number | undefined;
  /** The bytes to add to `events` again: the entry as it was, or its refused events as a msgpack list. */
  bytes: Buffer;
}

/** Dead letters from `from` to `to` (ids in `events:dead`, inclusive), the oldest first, at most `count`. */
export async function listDeadLetters(redis: Redis, { from = '-', to = '+', count }: { from?: string; to?: string; count: number }): Promise<DeadLetter[]> {
  return (await redis.xrangeBuffer(EVENT_DEAD_LETTERS, from, to, 'COUNT', count)).map(([id, fields]) => {
    const f = new Map<string, Buffer>();
    for (let i = 0; i + 1 < fields.length; i += 2) f.set(String(fields[i]), fields[i + 1] as Buffer);
    const n = f.get('n');
    return {
      deadId: String(id),
      entryId: String(f.get('id') ?? ''),
      error: String(f.get('error') ?? ''),
      n: n === undefined ? undefined : Number(String(n)),
      bytes: f.get('b') ?? Buffer.alloc(0),
    };
  });
}

/**
 * Adds a dead letter's events to `events` again as a new entry (once what refused them is mended: the writer,
 * or the table), then removes the letter. Not one transaction (the two keys may sit on different nodes of a
 * cluster): the letter is removed only after its entry is added, so a replay cut short between the two leaves
 * the letter in place, already replayed (docs/operations.md). False: no such letter.
 */
export async function replayDeadLetter(redis: Redis, deadId: string): Promise<boolean> {
  const [letter] = await listDeadLetters(redis, { from: deadId, to: deadId, count: 1 });
  if (!letter) return false;
  await redis.xadd(EVENT_STREAM, '*', ...(letter.n === undefined ? [] : ['n', letter.n]), 'b', letter.bytes);
  await redis.xdel(EVENT_DEAD_LETTERS, deadId);
  return true;
}
