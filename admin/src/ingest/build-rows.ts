import type { EngineEvent } from '@adnet/schemas/events';
import { unpack } from '@adnet/schemas/wire/msgpack';
import { batchRows } from './event-insert.ts';
import { writeEventRow } from './event-rows.ts';
import { writePackedEntry } from './packed-rows.ts';
import { RowBinaryWriter } from './row-binary-writer.ts';
import type { EventBatchRows } from './event-insert.ts';

/** An event the events table cannot hold (event-rows.ts `rowProblem`): its entry's place in the batch, its place in the entry, why. */
export interface RejectedEvent {
  entry: number;
  event: number;
  reason: string;
}

/** A batch's rows, and the events left out of them. */
export interface BuiltBatch {
  rows: EventBatchRows;
  rejected: RejectedEvent[];
}

/**
 * A batch's rows from its entries' packed events (the stream's field `b`), in entry order. Throws when an
 * entry is not a msgpack list (the whole entry is unreadable); an event whose values do not fit the table
 * is left out and named in `rejected`, the rest of its entry kept. The same on the builder's worker and on
 * the main thread, so every build of a batch keeps and rejects the same rows.
 */
export function buildBatch(packed: readonly Uint8Array[], rowBinary: boolean): BuiltBatch {
  return rowBinary ? buildRowBinary(packed) : buildFromEvents(packed, false);
}

/**
 * The same from the entries decoded into events: the values of a server's insert body, and the reference a
 * RowBinary body written straight from the msgpack is checked against (`packed-rows.test.ts`).
 */
export function buildFromEvents(packed: readonly Uint8Array[], rowBinary: boolean): BuiltBatch {
  const { events, starts } = decodeEntries(packed);
  const rejected: RejectedEvent[] = [];
  let entry = 0;
  const rows = batchRows(events, rowBinary, ({ at, reason }) => {
    // Rejections come in order: the entry only moves forward.
    while (entry + 1 < starts.length && (starts[entry + 1] as number) <= at) entry++;
    rejected.push({ entry, event: at - (starts[entry] as number), reason });
  });
  return { rows, rejected };
}

/**
 * The RowBinary body, each entry written straight from its msgpack (`writePackedEntry`), or from its decoded
 * events where it holds anything engines do not write: the same rows and rejections either way.
 */
function buildRowBinary(packed: readonly Uint8Array[]): BuiltBatch {
  let bytes = 0;
  for (const p of packed) bytes += p.length;
  const w = new RowBinaryWriter(bytes);
  const rejected: RejectedEvent[] = [];
  let count = 0;
  for (let entry = 0; entry < packed.length; entry++) {
    const p = packed[entry] as Uint8Array;
    const fast = writePackedEntry(w, p);
    if (fast) {
      for (const r of fast.rejected) rejected.push({ entry, event: r.event, reason: r.reason });
      count += fast.events - fast.rejected.length;
      continue;
    }
    const events = decodeEntry(p);
    for (let event = 0; event < events.length; event++) {
      const reason = writeEventRow(w, events[event] as EngineEvent);
      if (reason === undefined) count++;
      else rejected.push({ entry, event, reason });
    }
  }
  return { rows: { count, rowBinary: w.body() }, rejected };
}

/** Every entry's events in order, and where each entry's first event is in that list. */
export function decodeEntries(packed: readonly Uint8Array[]): { events: EngineEvent[]; starts: number[] } {
  const events: EngineEvent[] = [];
  const starts: number[] = [];
  for (const p of packed) {
    starts.push(events.length);
    for (const e of decodeEntry(p)) events.push(e);
  }
  return { events, starts };
}

function decodeEntry(p: Uint8Array): EngineEvent[] {
  const list = unpack<unknown>(p);
  if (!Array.isArray(list)) throw new Error(`not a list of events (${typeof list})`);
  return list as EngineEvent[];
}
