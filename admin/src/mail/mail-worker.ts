import { noticeSchema } from '@adnet/schemas/accounts';
import type { Notice } from '@adnet/schemas/accounts';
import { Periodic } from '@adnet/runtime/periodic';
import type { AdminConfig } from '@adnet/schemas/config';
import type { Logger } from '../log.ts';
import type { OneTimeTokens } from '../storage/one-time-tokens.ts';
import type { UserStore } from '../storage/users.ts';
import { passwordBinding } from '../storage/one-time-tokens.ts';
import type { MailQueue, MailJob } from './mail-queue.ts';
import { moderationWaitText } from '@adnet/schemas/moderation-wait';
import { renderNotice } from './messages.ts';
import type { RenderContext } from './messages.ts';
import type { MailTransport } from './transport.ts';

/** What sending a notice reads: the account it goes to, and a one-time token when its link needs one. */
export interface MailPorts {
  config: Pick<AdminConfig, 'mail' | 'server'>;
  /** The wait of a creative sent for review now (repos/creatives.ts currentModerationEta), in seconds. */
  moderationEta: () => Promise<number>;
  log: Logger;
  users: Pick<UserStore, 'get' | 'getByEmail'>;
  oneTimeTokens: Pick<OneTimeTokens, 'mint'>;
}

export interface MailWorkerOptions {
  svc: MailPorts;
  queue: MailQueue;
  transport: MailTransport;
  now?: () => number;
}

const BATCH = 20;
const LEASE_MS = 120_000;
const FIRST_RETRY_MS = 30_000;
const LAST_RETRY_MS = 3_600_000;

/** After the n-th failed attempt (1-based): 30 s, 1 min, 2 min, ... at most an hour. */
export const mailRetryDelayMs = (failures: number): number =>
  Math.min(LAST_RETRY_MS, FIRST_RETRY_MS * 2 ** Math.max(0, failures - 1));

const hours = (s: number): string =>
  s % 3600 === 0 ? `${s / 3600} hour${s === 3600 ? '' : 's'}` : `${Math.round(s / 60)} minutes`;

/**
 * Sends queued notices. Jobs are leased (several admin instances never send one twice at once), sent one
 * at a time per instance (notices are few), retried with back-off, and given up after MAIL_MAX_ATTEMPTS.
 * The logs name the kind, the account and the message id, never the address or a link.
 */
export class MailWorker {
  private readonly shell: Periodic;
  private readonly now: () => number;
  readonly counts = { sent: 0, retried: 0, givenUp: 0, skipped: 0 };

  constructor(private readonly o: MailWorkerOptions) {
    this.now = o.now ?? Date.now;
    this.shell = new Periodic({
      intervalMs: o.svc.config.mail.pollMs,
      pass: () => this.pass(),
      onError: (err) => o.svc.log.warn({ err }, 'mail pass failed'),
      runAtStart: true,
    });
  }

  start(): void {
    this.shell.start();
  }

  stop(): Promise<void> {
    return this.shell.stop();
  }

  /** One pass now (tests drive the worker by hand). */
  runOnce(): Promise<void> {
    return this.shell.runOnce();
  }

  private async pass(): Promise<void> {
    for (;;) {
      const leasedAt = Date.now();
      const jobs = await this.o.queue.lease(this.now(), LEASE_MS, BATCH);
      for (let i = 0; i < jobs.length; i++) {
        // A slow mail server must not outlast the lease, or another instance would send the same notice:
        // past half of it, the jobs not begun go back to the queue, due now.
        if (this.shell.stopping || Date.now() - leasedAt > LEASE_MS / 2) {
          await this.o.queue.release(
            jobs.slice(i).map((j) => j.id),
            this.now(),
          );
          return;
        }
        await this.handle(jobs[i] as MailJob);
      }
      if (jobs.length < BATCH) return;
    }
  }

  private async handle(job: MailJob): Promise<void> {
    const { svc, queue } = this.o;
    let parsed: Notice;
    try {
      parsed = noticeSchema.parse(JSON.parse(job.raw));
    } catch {
      svc.log.error({ event: 'mail.unreadable', jobId: job.id }, 'queued notice unreadable; dropped');
      await queue.done(job.id);
      return;
    }
    try {
      const ready = await this.prepare(parsed);
      if (!ready) {
        // No such account (a reset for an unknown email): nothing to send, and the caller was told the same as otherwise.
        this.counts.skipped++;
        await queue.done(job.id);
        return;
      }
      const sent = await this.o.transport.send({ to: ready.to, ...renderNotice(parsed, ready.ctx) });
      await queue.done(job.id);
      this.counts.sent++;
      svc.log.info(
        {
          event: 'mail.sent',
          kind: parsed.kind,
          userId: ready.userId,
          mode: this.o.transport.mode,
          messageId: sent.messageId,
          jobId: job.id,
        },
        'notice sent',
      );
    } catch (err) {
      const failures = job.attempts + 1;
      // The error's text can quote the SMTP dialogue, addresses included: only its code goes to the log.
      const { responseCode, code: errCode } = err as { code?: unknown; responseCode?: unknown };
      const code =
        typeof responseCode === 'number' ? String(responseCode) : typeof errCode === 'string' ? errCode : 'error';
      if (failures >= svc.config.mail.maxAttempts) {
        this.counts.givenUp++;
        await queue.done(job.id);
        svc.log.error(
          { event: 'mail.given_up', kind: parsed.kind, jobId: job.id, attempts: failures, code },
          'notice given up',
        );
      } else {
        this.counts.retried++;
        await queue.retry(job.id, this.now() + mailRetryDelayMs(failures));
        svc.log.warn(
          { event: 'mail.retry', kind: parsed.kind, jobId: job.id, attempts: failures, code },
          'notice not sent; will retry',
        );
      }
    }
  }

  /** The recipient, and the link's token minted now (the queue never holds one). */
  private async prepare(n: Notice): Promise<{ to: string; userId: number; ctx: RenderContext } | undefined> {
    const { svc } = this.o;
    const user = n.kind === 'password_reset' ? await svc.users.getByEmail(n.email) : await svc.users.get(n.user_id);
    if (!user) return undefined;
    const ctx: RenderContext = { baseUrl: svc.config.server.baseUrl };
    if (n.kind === 'password_reset') {
      const ttl = svc.config.mail.resetTtlSeconds;
      ctx.token = await svc.oneTimeTokens.mint('reset', user.id, {
        bind: passwordBinding(user.passwordHash),
        ttlSeconds: ttl,
        now: this.now(),
      });
      ctx.ttlText = hours(ttl);
    } else if (n.kind === 'verify_email') {
      if (user.emailVerifiedAt) return undefined;
      const ttl = svc.config.mail.verifyTtlSeconds;
      ctx.token = await svc.oneTimeTokens.mint('verify', user.id, {
        bind: user.email,
        ttlSeconds: ttl,
        now: this.now(),
      });
      ctx.ttlText = hours(ttl);
    } else if (n.kind === 'creative_moderated' && n.status === 'rejected') {
      ctx.moderationWait = moderationWaitText(await svc.moderationEta());
    }
    return { to: user.email, userId: user.id, ctx };
  }
}
