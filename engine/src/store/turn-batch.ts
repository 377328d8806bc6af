/**
 * Gathers the calls of one event-loop turn into one batch: every `add` until the turn's I/O has been
 * handled (`setImmediate`, as ioredis's own auto-pipelining does) goes to `run` together, and each
 * call's promise gets its own result. A batch's failure fails every call in it. Batches hold at most
 * `max` items; a longer turn is split.
 */
export class TurnBatch<In, Out> {
  private items: In[] = [];
  private waiters: Waiter<Out>[] = [];

  constructor(
    private readonly run: (items: readonly In[]) => Promise<readonly Out[]>,
    private readonly max = 512,
  ) {}

  add(item: In): Promise<Out> {
    if (this.items.length === 0) setImmediate(flushBatch, this);
    this.items.push(item);
    return new Promise<Out>((resolve, reject) => {
      this.waiters.push({ resolve, reject });
    });
  }

  /** Sends what is pending, `max` at a time. */
  flush(): void {
    const items = this.items;
    const waiters = this.waiters;
    this.items = [];
    this.waiters = [];
    for (let from = 0; from < items.length; from += this.max) {
      const part = from === 0 && items.length <= this.max ? items : items.slice(from, from + this.max);
      const partWaiters = from === 0 && items.length <= this.max ? waiters : waiters.slice(from, from + this.max);
      this.run(part).then(
        (out) => settleAll(partWaiters, out),
        (err: unknown) => failAll(partWaiters, err),
      );
    }
  }
}

interface Waiter<Out> {
  resolve(value: Out): void;
  reject(err: unknown): void;
}

// At module level: per-batch closures would also pay tsx's __name (bench/results/ab-history.md, step 6).
function flushBatch<In, Out>(batch: TurnBatch<In, Out>): void {
  batch.flush();
}

function settleAll<Out>(waiters: readonly Waiter<Out>[], out: readonly Out[]): void {
  if (out.length !== waiters.length) {
    failAll(waiters, new Error(`a batch of ${waiters.length} got ${out.length} answers`));
    return;
  }
  for (let i = 0; i < waiters.length; i++) waiters[i]?.resolve(out[i] as Out);
}

function failAll(waiters: readonly Waiter<unknown>[], err: unknown): void {
  for (const w of waiters) w.reject(err);
}
