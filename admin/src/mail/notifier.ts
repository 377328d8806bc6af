import type { Notice } from '@adnet/schemas/accounts';
import type { Logger } from '../log.ts';
import type { EnqueueOptions, MailQueue } from './mail-queue.ts';

/**
 * How any part of the admin sends a notice: it is queued (one Redis write) and sent by the mail worker,
 * so sending never holds up or fails the request that asked for it; a queueing failure is logged and
 * swallowed. Other features call `notify`, e.g. `svc.notifier.notify({kind: 'payout_paid', user_id,
 * payout_id, amount_cents, reference})` when an admin marks a payout paid.
 */
export class Notifier {
  constructor(
    private readonly queue: MailQueue,
    private readonly log: Logger,
  ) {}

  /** True when queued; false when `once` had it queued already, or the queue could not be written. Never throws. */
  async notify(notice: Notice, o: EnqueueOptions = {}): Promise<boolean> {
    try {
      const id = await this.queue.enqueue(notice, o);
      if (id !== undefined) this.log.debug({ event: 'mail.queued', kind: notice.kind, jobId: id }, 'notice queued');
      return id !== undefined;
    } catch (err) {
      this.log.error({ event: 'mail.queue_failed', kind: notice.kind, err }, 'notice could not be queued');
      return false;
    }
  }
}
