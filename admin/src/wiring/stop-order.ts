import type { Logger } from '../log.ts';

/**
 * The order the admin stops in, first to last. A step runs only when its piece was built or started; a
 * step that fails is logged and the rest still run.
 */
export const STOP_ORDER = [
  { step: 'admin', why: 'no new requests first, and in-flight ones finish while everything below still works' },
  { step: 'metrics', why: 'the scrape reads the workers below, so it closes before they stop' },
  { step: 'payout close', why: 'reads ClickHouse and writes Redis, both still open' },
  { step: 'target cpa', why: 'its pass reads counts and writes zone bids in Redis, still open' },
  {
    step: 'rule evaluator',
    why: 'reads ClickHouse, writes campaigns through the config store and queues mail in Redis, all still open',
  },
  { step: 'video poller', why: 'a job it advances may refund into the ledger in Redis, still open' },
  {
    step: 'backups',
    why: 'a backup pauses the ingester and copies ClickHouse and Redis, so it ends before any of them',
  },
  { step: 'postback worker', why: 'hands attempts not begun back to the queue in Redis, still open' },
  { step: 'mail worker', why: 'sends through the mail transport, so it stops before the transport' },
  { step: 'mail transport', why: 'nothing sends once the mail worker has stopped' },
  { step: 'health probes', why: 'they probe Redis and ClickHouse, so they stop before those close' },
  { step: 'ingester', why: 'its last batch goes into ClickHouse and is acknowledged in Redis, both closed after it' },
  { step: 'clickhouse', why: 'every reader and writer of the event store has stopped' },
  { step: 'redis client', why: 'last: every step above may still read or write Redis' },
] as const;

export type StopStep = (typeof STOP_ORDER)[number]['step'];

/** What the admin built and started, stopped in STOP_ORDER whatever order it was added in. */
export class Stopper {
  private readonly steps = new Map<StopStep, () => Promise<unknown>>();

  constructor(private readonly log: Logger) {}

  add(step: StopStep, close: () => Promise<unknown>): void {
    this.steps.set(step, close);
  }

  async stop(): Promise<void> {
    for (const { step } of STOP_ORDER) {
      const close = this.steps.get(step);
      if (!close) continue;
      this.steps.delete(step);
      await close().catch((err: unknown) => this.log.error({ err, name: step }, 'stop failed'));
    }
  }
}
