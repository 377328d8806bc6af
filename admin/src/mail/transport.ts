import { randomBytes } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import nodemailer from 'nodemailer';
import type { MailMessage } from './messages.ts';

export interface Envelope extends MailMessage {
  to: string;
}

export interface SentMail {
  messageId: string;
  /** The `.eml` file written, in outbox mode. */
  file?: string;
}

/** Where a message goes: an SMTP server, or a file per message when none is configured. */
export interface MailTransport {
  readonly mode: 'smtp' | 'outbox';
  send(mail: Envelope): Promise<SentMail>;
  close(): void;
}

export interface TransportOptions {
  smtpUrl: string | undefined;
  from: string;
  /** `DATA_DIR/outbox`, used when smtpUrl is unset. */
  outboxDir: string;
  /** Time limits of one SMTP conversation. */
  timeoutMs?: number;
}

/** Nodemailer over SMTP (`SMTP_URL`), else its stream transport writing each raw message to one `.eml` file. */
export function createMailTransport(o: TransportOptions): MailTransport {
  if (o.smtpUrl) {
    const timeout = o.timeoutMs ?? 15_000;
    const smtp = nodemailer.createTransport({
      url: o.smtpUrl,
      connectionTimeout: timeout,
      greetingTimeout: timeout,
      socketTimeout: timeout,
    });
    return {
      mode: 'smtp',
      async send(mail) {
        const info = await smtp.sendMail({ from: o.from, to: mail.to, subject: mail.subject, text: mail.text });
        return { messageId: String(info.messageId) };
      },
      close: () => smtp.close(),
    };
  }
  const stream = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'windows' });
  let made = false;
  return {
    mode: 'outbox',
    async send(mail) {
      const info = await stream.sendMail({ from: o.from, to: mail.to, subject: mail.subject, text: mail.text });
      if (!made) {
        await mkdir(o.outboxDir, { recursive: true, mode: 0o700 });
        made = true;
      }
      // Time first so a listing reads in order; owner-only, since a reset link is a password for an hour.
      const file = join(
        o.outboxDir,
        `${new Date().toISOString().replace(/[:.]/g, '-')}-${randomBytes(4).toString('hex')}.eml`,
      );
      await writeFile(file, info.message as Buffer, { mode: 0o600, flag: 'wx' });
      return { messageId: String(info.messageId), file };
    },
    close: () => undefined,
  };
}
