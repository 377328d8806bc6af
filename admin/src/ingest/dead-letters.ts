import type { EngineEvent } from '@adnet/schemas/events';
import { EVENT_DEAD_LETTERS, EVENT_STREAM, replayedLetterKey } from '@adnet/schemas/redis-keys';
import { pack } from '@adnet/schemas/wire/msgpack';
import type { Redis } from 'ioredis';

/** Dead letters kept at most (about): each is one engine batch, read by people, not by the product. */
const DEAD_LETTERS_MAX = 100_000;

/** A dead letter's fields as written (`XADD events:dead * <fields>`). */
export type DeadLetterFields = (string | number | Buffer)[];

/** An event of a stream entry that will not go into the events table, and why. */
export interface RefusedEvent {
  entryId: string;
  event: EngineEvent;
  reason: string;
}

/** A stream entry that is not events (`problem`): the letter holds its bytes as they were. */
export function unreadableEntryLetter(entryId: string, problem: string, packed: Buffer): DeadLetterFields {
  return ['id', entryId, 'error', problem.slice(0, 500), 'b', packed];
}

/**
 * Refused events, one letter per entry (its `id`), holding that entry's refused events as a msgpack list in
 * `b` and their count in `n`: a stream entry as writers write it, which can be added to `events` again as
 * it is once what refused it is mended. In the order the entries first appear.
 */
export function refusedEventLetters(refused: readonly RefusedEvent[]): DeadLetterFields[] {
  const byEntry = new Map<string, RefusedEvent[]>();
  for (const r of refused) byEntry.set(r.entryId, [...(byEntry.get(r.entryId) ?? []), r]);
  const letters: DeadLetterFields[] = [];
  for (const [entryId, rows] of byEntry) {
    const reasons = [...new Set(rows.map((r) => r.reason))].join('; ');
    letters.push([
      'id',
      entryId,
      'error',
      reasons.slice(0, 500),
      'n',
      rows.length,
      'b',
      pack(rows.map((r) => r.event)),
    ]);
  }
  return letters;
}

/** Adds letters to `events:dead`; throws if any was not added (the caller's batch then stays pending and writes them again). */
export async function addDeadLetters(redis: Redis, letters: readonly DeadLetterFields[]): Promise<void> {
  const dead = redis.pipeline();
  for (const fields of letters) dead.xadd(EVENT_DEAD_LETTERS, 'MAXLEN', '~', DEAD_LETTERS_MAX, '*', ...fields);
  for (const [failed] of (await dead.exec()) ?? []) if (failed) throw failed;
}

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
export async function listDeadLetters(
  redis: Redis,
  { from = '-', to = '+', count }: { from?: string; to?: string; count: number },
): Promise<DeadLetter[]> {
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
 * or the table), then removes the letter; each letter's events are added once, however often or however many
 * at once replay it. The entry is added and the letter marked replayed in one script (`REPLAY_LUA`, its two keys
 * in one slot); the letter itself (`events:dead`, maybe on another node of a cluster) is removed after. A replay
 * cut short before the removal and run again, or one that read the letter while another replayed it, finds the
 * mark and adds nothing. The mark outlives the letter by a week (`REPLAYED_MARK_S`), longer than any replay
 * waits between reading a letter and adding its events. False: no such letter.
 */
export async function replayDeadLetter(redis: Redis, deadId: string): Promise<boolean> {
  const [letter] = await listDeadLetters(redis, { from: deadId, to: deadId, count: 1 });
  if (!letter) return false;
  await addReplayedEntry(redis, letter);
  await redis.xdel(EVENT_DEAD_LETTERS, deadId);
  return true;
}

/**
 * The first step of a replay alone: the letter's events added to `events` and the letter marked replayed, unless
 * it is marked already. True when this call added them. What a replay cut short before it removed the letter did.
 */
export async function addReplayedEntry(redis: Redis, letter: DeadLetter): Promise<boolean> {
  const n = letter.n === undefined ? '' : String(letter.n);
  const added = await redis.eval(
    REPLAY_LUA,
    2,
    EVENT_STREAM,
    replayedLetterKey(letter.deadId),
    n,
    letter.bytes,
    REPLAYED_MARK_S,
  );
  return added === 1;
}

const REPLAYED_MARK_S = 7 * 86_400;

// KEYS: the event stream, the letter's replayed mark. ARGV: its events' count ('' when unknown), its bytes, the mark's life.
const REPLAY_LUA = `
if redis.call('EXISTS', KEYS[2]) == 1 then return 0 end
if ARGV[1] == '' then
  redis.call('XADD', KEYS[1], '*', 'b', ARGV[2])
else
  redis.call('XADD', KEYS[1], '*', 'n', ARGV[1], 'b', ARGV[2])
end
redis.call('SET', KEYS[2], '1', 'EX', ARGV[3])
return 1`;
