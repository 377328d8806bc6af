export interface PeriodicOptions {
  /** Pause between the end of one pass and the start of the next. */
  intervalMs: number;
  pass: () => Promise<unknown>;
  /** A failed pass is reported here; the next one runs as scheduled. */
  onError: (err: unknown) => void;
  /** Run the first pass at start rather than one interval later. */
  runAtStart?: boolean;
}

/**
 * The shell of every background worker: one pass at a time, the next one an
 * interval after the last ended (a slow pass never piles up behind itself),
 * and `stop` that waits for the pass in progress. The timer does not keep the
 * process alive: the servers do.
 */
export class Periodic {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = false;
  private started = false;

  constructor(private readonly o: PeriodicOptions) {}

  /** True once `stop` was called: a long pass checks it to hand back what it has not begun. */
  get stopping(): boolean {
    return this.stopped;
  }

  start(): void {
    if (this.started) return;
    this.started = true;
    if (this.o.runAtStart) this.tick();
    else this.schedule();
  }

  /** Runs a pass now, or joins the one in progress. */
  runOnce(): Promise<void> {
    this.running ??= this.o
      .pass()
      .then(() => undefined)
      .finally(() => (this.running = undefined));
    return this.running;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.running?.catch(() => undefined);
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => this.tick(), this.o.intervalMs);
    this.timer.unref();
  }

  private tick(): void {
    if (this.stopped) return;
    this.runOnce()
      .catch(this.o.onError)
      .finally(() => this.schedule());
  }
}
