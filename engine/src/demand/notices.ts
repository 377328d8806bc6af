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
  constructor(
    private readonly ledger: NoticeLedger,
    private readonly sender: NoticeSender,
    private readonly opts: { timeoutMs?: number; retryDelaysMs?: readonly number[]; onOutcome?: (o: NoticeOutcome) => void } = {},
  ) {}

  /** Sends `url` once under `key`; never throws, never waits for the caller's sake (returns the whole story for tests). */
  async send(key: string, url: string): Promise<NoticeOutcome> {
    let claimed = false;
    try {
      claimed = await this.ledger.claim(key);
    } catch {
      claimed = false;
    }
    if (!claimed) return { key, sent: false, attempts: 0 };
    const delays = this.opts.retryDelaysMs ?? [250, 2_000, 10_000];
    let attempts = 0;
    let sent = false;
    for (;;) {
      attempts++;
      sent = await this.sender.notify(url, this.opts.timeoutMs ?? 2_000);
      if (sent || attempts > delays.length) break;
      await new Promise((r) => setTimeout(r, delays[attempts - 1]));
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
