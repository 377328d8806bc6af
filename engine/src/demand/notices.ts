/** Once-only marks for notices, shared by every engine (Redis: `dmd:ntc:<key>`). */
export interface NoticeLedger {
  /** True for the one caller that may send this notice; false when it is being sent or was sent. */
  claim(key: string): Promise<boolean>;
  /** Records how the notice ended. */
  finish(key: string, sent: boolean): Promise<void>;
}

export interface NoticeSender {
  notify(url: string, timeoutMs: number): Promise<boolean>;
}

export interface NoticeOutcome {
  key: string;
  sent: boolean;
  attempts: number;
}

/**
 * Win, billing and loss notices to demand partners. Each notice has a key (auction, partner, kind);
 * the first caller claims it in the ledger, so however often a serve, a pixel or a replay asks for
 * it, one engine sends it. A failed attempt is retried after each of `retryDelaysMs` (bounded);
 * a notice that succeeded is never sent again. Retries live in this process: a notice whose engine
 * dies mid-retry is recorded neither sent nor failed and is not sent again (at most once, by design).
 */
export class Notifier {
  private closed = false;
  /** Claims and attempts in flight (not the waits between attempts): what close() lets end. */
  private readonly busy = new Set<Promise<boolean>>();

  constructor(
    private readonly ledger: NoticeLedger,
    private readonly sender: NoticeSender,
    private readonly opts: {
      timeoutMs?: number;
      retryDelaysMs?: readonly number[];
      onOutcome?: (o: NoticeOutcome) => void;
    } = {},
  ) {}

  /**
   * Lets the attempts in flight end (within `graceMs`) and starts no more: an engine closes this before
   * its connections, so a notice the partner already took is not cut off mid-answer and sent again.
   */
  async close(graceMs: number): Promise<void> {
    this.closed = true;
    if (this.busy.size === 0) return;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([Promise.allSettled([...this.busy]), new Promise((r) => (timer = setTimeout(r, graceMs)))]);
    clearTimeout(timer);
  }

  private track(p: Promise<boolean>): Promise<boolean> {
    this.busy.add(p);
    return p.finally(() => this.busy.delete(p));
  }

  /** Sends `url` once under `key`; never throws, never waits for the caller's sake (returns the whole story for tests). */
  async send(key: string, url: string): Promise<NoticeOutcome> {
    let claimed = false;
    try {
      claimed = await this.track(this.ledger.claim(key));
    } catch {
      claimed = false;
    }
    if (!claimed) return { key, sent: false, attempts: 0 };
    const delays = this.opts.retryDelaysMs ?? [250, 2_000, 10_000];
    let attempts = 0;
    let sent = false;
    for (;;) {
      attempts++;
      sent = await this.track(this.sender.notify(url, this.opts.timeoutMs ?? 2_000));
      if (sent || attempts > delays.length || this.closed) break;
      await new Promise((r) => setTimeout(r, delays[attempts - 1]));
      // Closed while waiting: the notice is left unsent rather than sent by a process on its way out.
      if (this.closed) break;
    }
    await this.ledger.finish(key, sent).catch(() => undefined);
    const outcome = { key, sent, attempts };
    this.opts.onOutcome?.(outcome);
    return outcome;
  }
}

/** The Redis ledger: a claim is `SET NX` (kept 7 days, longer than any ticket lives), the outcome overwrites it. */
export function redisNoticeLedger(redis: {
  set(key: string, value: string, ex: 'EX', seconds: number, nx: 'NX'): Promise<string | null>;
  set(key: string, value: string, ex: 'EX', seconds: number): Promise<string | null>;
}): NoticeLedger {
  const WEEK = 7 * 24 * 3600;
  return {
    claim: async (key) => (await redis.set(`dmd:ntc:${key}`, 'sending', 'EX', WEEK, 'NX')) === 'OK',
    finish: async (key, sent) => {
      await redis.set(`dmd:ntc:${key}`, sent ? 'sent' : 'failed', 'EX', WEEK);
    },
  };
}
