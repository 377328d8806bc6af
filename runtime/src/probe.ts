export interface ProbeOptions<T> {
  /** Asks the dependency once (a PING, a read). Never awaited by a reader of `reading`. */
  check: () => Promise<T>;
  /** Pause between the end of one check and the start of the next. */
  intervalMs: number;
  /** A check unanswered this long makes the dependency hung. */
  deadlineMs: number;
}

/** What the last checks found, read without asking the dependency. */
export type ProbeReading<T> =
  | { kind: 'answered'; value: T; atMs: number }
  | { kind: 'failed'; error: string; atMs: number }
  /** A check is out and overdue: the dependency holds the connection but does not answer. */
  | { kind: 'hung'; forMs: number }
  | { kind: 'unchecked' };

/**
 * Asks a dependency periodically and keeps the answer, so readiness is computed from what is known
 * instead of awaiting a command: a Redis stopped with SIGSTOP keeps its TCP connection open, and a
 * client's commands just queue behind it. One check at a time: a hung dependency gets one check, not
 * a pile of them; `stop` does not wait for that check.
 */
export class Probe<T> {
  private timer: NodeJS.Timeout | undefined;
  private outSinceMs: number | undefined;
  private last: ProbeReading<T> = { kind: 'unchecked' };
  private stopped = false;
  private first: Promise<void> | undefined;
  /** The value of the last answered check, however old, with when it was answered. */
  lastAnswer: { value: T; atMs: number } | undefined;

  constructor(private readonly o: ProbeOptions<T>) {}

  /** Starts checking; resolves when the first check is answered, or at its deadline. */
  start(): Promise<void> {
    if (this.first) return this.first;
    const answered = this.tick();
    this.first = Promise.race([answered, new Promise<void>((r) => setTimeout(r, this.o.deadlineMs).unref())]);
    return this.first;
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
  }

  reading(nowMs = Date.now()): ProbeReading<T> {
    if (this.outSinceMs !== undefined && nowMs - this.outSinceMs > this.o.deadlineMs)
      return { kind: 'hung', forMs: nowMs - this.outSinceMs };
    return this.last;
  }

  private async tick(): Promise<void> {
    if (this.stopped) return;
    this.outSinceMs = Date.now();
    try {
      const value = await this.o.check();
      this.last = { kind: 'answered', value, atMs: Date.now() };
      this.lastAnswer = { value, atMs: this.last.atMs };
    } catch (err) {
      this.last = { kind: 'failed', error: err instanceof Error ? err.message : String(err), atMs: Date.now() };
    } finally {
      this.outSinceMs = undefined;
    }
    if (this.stopped) return;
    this.timer = setTimeout(() => void this.tick(), this.o.intervalMs);
    this.timer.unref();
  }
}

/** Seconds with one decimal, for a detail a person reads. */
export const seconds = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;

/**
 * A reading as readiness reports it (the shape of `DependencyCheck` in @adnet/schemas/readiness, without the
 * name): `what` names the check, e.g. `PING`.
 */
export function readingState(
  reading: ProbeReading<unknown>,
  what: string,
  nowMs = Date.now(),
): { state: 'ok' | 'down' | 'hung'; detail: string } {
  switch (reading.kind) {
    case 'answered':
      return { state: 'ok', detail: `${what} answered ${seconds(nowMs - reading.atMs)} ago` };
    case 'failed':
      return { state: 'down', detail: `${what} failed: ${reading.error}` };
    case 'hung':
      return { state: 'hung', detail: `${what} unanswered for ${seconds(reading.forMs)}` };
    case 'unchecked':
      return { state: 'down', detail: `${what} not answered yet` };
  }
}

/**
 * A client's check (a Redis client's `status` beside its PING probe): a connection that is not `ready` is down
 * whatever the probe last saw; a ready one that does not answer is hung.
 */
export function clientState(
  status: string,
  reading: ProbeReading<unknown>,
  what: string,
  nowMs = Date.now(),
): { state: 'ok' | 'down' | 'hung'; detail: string } {
  if (status !== 'ready') return { state: 'down', detail: `connection ${status}` };
  return readingState(reading, what, nowMs);
}
