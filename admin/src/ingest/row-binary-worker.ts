// A worker thread of the ingester (batch-builder.ts): decodes a batch's packed entries and writes their
// RowBinary body, the main thread's largest serial cost per event (bench/results/performance.md, goal 5).
import { parentPort } from 'node:worker_threads';
import type { EngineEvent } from '@adnet/schemas/events';
import { unpack } from '@adnet/schemas/wire/msgpack';
import { eventsRowBinary } from './event-rows.ts';
import type { BuildReply, BuildRequest } from './batch-builder.ts';

parentPort?.on('message', ({ id, packed }: BuildRequest) => {
  let reply: BuildReply;
  let transfer: ArrayBuffer[] = [];
  try {
    const events: EngineEvent[] = [];
    for (const p of packed) for (const e of unpack<EngineEvent[]>(p)) events.push(e);
    const body = eventsRowBinary(events);
    // A body with an ArrayBuffer of its own moves without a copy; a small one may sit in Buffer's shared pool.
    const out = body.byteOffset === 0 && body.buffer.byteLength === body.length ? body : new Uint8Array(body);
    reply = { id, count: events.length, body: out.buffer as ArrayBuffer, length: out.length };
    transfer = [reply.body];
  } catch (err) {
    reply = { id, error: (err as Error).message };
  }
  parentPort?.postMessage(reply, transfer);
});
