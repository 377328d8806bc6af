import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { buildBatch } from './build-rows.ts';
import type { BuiltBatch, RejectedEvent } from './build-rows.ts';

/** To the worker: a batch's entries, each its events as one msgpack array (the stream's field `b`). */
export interface BuildRequest {
  id: number;
  packed: readonly Uint8Array[];
}
/** From the worker: the batch's RowBinary body (`length` bytes of `body`), its row count and the events left out, or why not. */
export type BuildReply =
  | { id: number; count: number; body: ArrayBuffer; length: number; rejected: RejectedEvent[] }
  | { id: number; error: string };

/**
 * Builds a batch's rows from its entries' packed events. For embedded chDB (RowBinary bodies) the msgpack
 * decode and the body are written on a worker thread: they were most of the ingester's serial main-thread
 * time per event (about 1.8 and 1.6 us of 2.3-4 us; bench/results/ab-history.md, goal 5), so the main
 * thread reads and records the next batch meanwhile. Rows in an insert's body (a server) are built here.
 */
export class BatchBuilder {
  private worker: Worker | undefined;
  private readonly waiting = new Map<number, { resolve(built: BuiltBatch): void; reject(err: Error): void }>();
  private nextId = 0;
  /** The worker could not start or died of an error: the rest of this process builds on the main thread. */
  workerFailed = false;

  constructor(
    private readonly o: {
      /** RowBinary bodies (embedded chDB); else values for an insert's body. */
      rowBinary: boolean;
      /** RowBinary bodies built on the worker thread. */
      inWorker: boolean;
    },
  ) {}

  /** Starts the worker ahead of the first batch (it takes about 0.3 s of CPU and up to 1 s to load). */
  warm(): void {
    if (this.o.inWorker && this.o.rowBinary && !this.workerFailed && !this.worker) this.startWorker();
  }

  /** The batch's rows; events that do not fit the table are left out and named (`rejected`), an unreadable entry fails it. */
  build(packed: readonly Buffer[]): Promise<BuiltBatch> {
    const worker =
      this.o.inWorker && this.o.rowBinary && !this.workerFailed ? (this.worker ?? this.startWorker()) : undefined;
    // A bad entry rejects the build here too, as on the worker.
    if (!worker) return new Promise((resolve) => resolve(buildBatch(packed, this.o.rowBinary)));
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      // Copied to the worker: the entries' buffers are views of ioredis's reply and cannot move.
      worker.postMessage({ id, packed } satisfies BuildRequest);
    });
  }

  /**
   * Why each entry cannot become rows on its own (undefined: it can), on this thread: after a build failed,
   * it tells a bad entry (the same failure every time) from a worker that died (worth a retry).
   */
  problems(packed: readonly Buffer[]): (string | undefined)[] {
    return packed.map((p) => {
      try {
        buildBatch([p], this.o.rowBinary);
        return undefined;
      } catch (err) {
        return (err as Error).message || String(err);
      }
    });
  }

  async close(): Promise<void> {
    const worker = this.worker;
    this.worker = undefined;
    await worker?.terminate();
  }

  private startWorker(): Worker | undefined {
    // The worker runs TypeScript like the rest of the process: tsx's loader registered inside it first.
    let tsx: string;
    try {
      tsx = pathToFileURL(
        createRequire(import.meta.url)
          .resolve('tsx/esm/api')
          .replace(/\.cjs$/, '.mjs'),
      ).href;
    } catch {
      this.workerFailed = true;
      return undefined;
    }
    const entry = new URL('./row-binary-worker.ts', import.meta.url).href;
    const worker = new Worker(
      `import(${JSON.stringify(tsx)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(entry)}); });`,
      { eval: true },
    );
    // Never what keeps the process alive: stop() closes it, and a process exiting takes it along.
    worker.unref();
    worker.on('message', (reply: BuildReply) => {
      const waiter = this.waiting.get(reply.id);
      this.waiting.delete(reply.id);
      if ('error' in reply) waiter?.reject(new Error(reply.error));
      else
        waiter?.resolve({
          rows: { count: reply.count, rowBinary: Buffer.from(reply.body, 0, reply.length) },
          rejected: reply.rejected,
        });
    });
    const fail = (err: Error) => {
      if (this.worker === worker) this.worker = undefined;
      for (const w of this.waiting.values()) w.reject(err);
      this.waiting.clear();
    };
    // An error event is the worker itself failing (a build's own error is an answer): stop relying on it.
    worker.on('error', (err) => {
      this.workerFailed = true;
      fail(err);
    });
    worker.on('exit', (code) => fail(new Error(`batch builder worker exited (${code})`)));
    this.worker = worker;
    return worker;
  }
}
