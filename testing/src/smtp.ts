import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

export interface ReceivedMail {
  from: string;
  to: string[];
  /** The raw message as received. */
  raw: string;
  subject: string;
  /** The text body, transfer encoding undone. */
  text: string;
}

export interface TestSmtp {
  url: string;
  received: ReceivedMail[];
  /** Resolves with the first message (from now on or already received) that matches. */
  waitFor(match: (m: ReceivedMail) => boolean, timeoutMs?: number): Promise<ReceivedMail>;
  /** Answers every message with a temporary failure while set. */
  failing: boolean;
  close(): Promise<void>;
}

/** Undoes quoted-printable (soft line breaks, =XX bytes) as UTF-8. */
function decodeQuotedPrintable(s: string): string {
  const bytes = s.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/gi, (_, h: string) => `%${h}`);
  try {
    return decodeURIComponent(bytes.replace(/%(?![0-9A-F]{2})/gi, '%25'));
  } catch {
    return bytes;
  }
}

/** Header and body of a single-part text message as nodemailer writes it. */
export function parseMail(raw: string): { subject: string; text: string } {
  const split = raw.indexOf('\r\n\r\n');
  const head = raw.slice(0, split).replace(/\r\n[ \t]+/g, ' ');
  const body = raw.slice(split + 4);
  const header = (name: string) => new RegExp(`^${name}:\\s*(.*)$`, 'im').exec(head)?.[1]?.trim() ?? '';
  const encoding = header('Content-Transfer-Encoding').toLowerCase();
  const text =
    encoding === 'quoted-printable'
      ? decodeQuotedPrintable(body)
      : encoding === 'base64'
        ? Buffer.from(body, 'base64').toString('utf8')
        : body;
  return { subject: header('Subject'), text };
}

/** A real SMTP server in this process (smtp-server, no auth, no TLS), keeping what it receives. */
export async function startSmtp(): Promise<TestSmtp> {
  const received: ReceivedMail[] = [];
  const waiters: { match: (m: ReceivedMail) => boolean; resolve: (m: ReceivedMail) => void }[] = [];
  const state = { failing: false };
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        if (state.failing) return callback(Object.assign(new Error('try again later'), { responseCode: 451 }));
        const raw = Buffer.concat(chunks).toString('utf8');
        const mail: ReceivedMail = {
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address),
          raw,
          ...parseMail(raw),
        };
        received.push(mail);
        for (const w of waiters.splice(0)) {
          if (w.match(mail)) w.resolve(mail);
          else waiters.push(w);
        }
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.server.address() as AddressInfo).port;
  return {
    url: `smtp://127.0.0.1:${port}`,
    received,
    get failing() {
      return state.failing;
    },
    set failing(v: boolean) {
      state.failing = v;
    },
    waitFor(match, timeoutMs = 10_000) {
      const found = received.find(match);
      if (found) return Promise.resolve(found);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error('no such mail arrived')), timeoutMs);
        waiters.push({
          match,
          resolve: (m) => {
            clearTimeout(timer);
            resolve(m);
          },
        });
      });
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** The token of the first cabinet link of a kind (`reset-password`, `verify-email`) in a message. */
export function linkToken(mail: { text: string }, page: string): string {
  const m = new RegExp(`/cabinet/${page}#token=([A-Za-z0-9_-]+)`).exec(mail.text);
  if (!m?.[1]) throw new Error(`no ${page} link in: ${mail.text}`);
  return m[1];
}
