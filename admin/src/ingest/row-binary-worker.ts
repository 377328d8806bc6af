// A worker thread of the ingester (batch-builder.ts): decodes a batch's packed entries and writes their
// RowBinary body, the main thread's largest serial cost per event (bench/results/ab-history.md, goal 5).
import { parentPort } from 'node:worker_threads';
import { buildBatch } from './build-rows.ts';
import type { BuildReply, BuildRequest } from './batch-builder.ts';

parentPort?.on('message', ({ id, packed }: BuildRequest) => {
  let reply: BuildReply;
  let transfer: ArrayBuffer[] = [];
  try {
    const { rows, rejected } = buildBatch(packed, true);
    const body = 'rowBinary' in rows ? rows.rowBinary : Buffer.alloc(0);
    // A body with an ArrayBuffer of its own moves without a copy; a small one may sit in Buffer's shared pool.
    const out = body.byteOffset === 0 && body.buffer.byteLength === body.length ? body : new Uint8Array(body);
    reply = { id, count: rows.count, body: out.buffer as ArrayBuffer, length: out.length, rejected };
    transfer = [reply.body];
  } catch (err) {
    reply = { id, error: (err as Error).message };
  }
  parentPort?.postMessage(reply, transfer);
});
