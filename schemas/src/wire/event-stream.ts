import type { EngineEvent } from '../events.ts';
import { pack, unpack } from './msgpack.ts';
import { EVENT_STREAM } from './redis-keys.ts';

// The `events` stream's entry format, the one writer and reader of it: fields
// `n` (how many events) and `b` (the events as one msgpack array). Writers are
// the engines' batcher and the admin's conversion postback; the reader is the
// ingester.

/** XADD arguments (after the command name) for one batch, trimmed to about `maxLen` entries. */
export function xaddArgs(
  batch: readonly EngineEvent[],
  maxLen: number,
): [string, 'MAXLEN', '~', number, '*', 'n', number, 'b', Buffer] {
  return [EVENT_STREAM, 'MAXLEN', '~', maxLen, '*', 'n', batch.length, 'b', pack(batch)];
}

/** A stream entry's field list (`[name, value, ...]` as XRANGE/XREADGROUP return it) to its events. */
/** An XREADGROUP reply of the `events` stream read as buffers (`callBuffer`); null when the read timed out. */
export type ReadGroupReply = [Buffer, [Buffer, Buffer[] | null][]][] | null;

/** The entries of an XREADGROUP reply, id and fields, in order; an entry trimmed since it was delivered (no fields) is left out. */
export function readGroupEntries(reply: ReadGroupReply): [id: string, fields: Buffer[]][] {
  const out: [string, Buffer[]][] = [];
  for (const [, items] of reply ?? []) for (const [id, fields] of items) if (fields) out.push([String(id), fields]);
  return out;
}

export function decodeEntry(fields: readonly (Buffer | string)[]): EngineEvent[] {
  for (let i = 0; i + 1 < fields.length; i += 2) {
    if (String(fields[i]) === 'b') return unpack<EngineEvent[]>(fields[i + 1] as Buffer);
  }
  return [];
}
