import { z } from 'zod';

/** Email notices: the mail server and the links they carry. */
export const mailSlice = z
  .object({
    /**
     * Outgoing mail server, `smtp://user:password@host:587` (STARTTLS when offered) or `smtps://...:465`. Unset: each
     * message is written as one `.eml` file to `DATA_DIR/outbox/` and nothing is sent.
     */
    SMTP_URL: z.url({ protocol: /^smtps?$/ }).optional(),
    /** Sender of every notice, `Name <address>` or a bare address. */
    MAIL_FROM: z.string().min(3).max(200).default('adnet <no-reply@localhost>'),
    /** How often each admin process sends the queued mail (and looks for balances below their thresholds). */
    MAIL_POLL_MS: z.coerce.number().int().min(20).max(600_000).default(2_000),
    /** Attempts at one message before it is given up (and logged); retries back off from 30 s to an hour. */
    MAIL_MAX_ATTEMPTS: z.coerce.number().int().min(1).max(50).default(8),
    /** Lifetime of a password-reset link, in minutes. */
    PASSWORD_RESET_TTL_MINUTES: z.coerce.number().int().min(5).max(1_440).default(60),
    /** Lifetime of an email-verification link, in hours. */
    EMAIL_VERIFY_TTL_HOURS: z.coerce.number().int().min(1).max(720).default(72),
  })
  .transform((e) => ({
    smtpUrl: e.SMTP_URL,
    from: e.MAIL_FROM,
    pollMs: e.MAIL_POLL_MS,
    maxAttempts: e.MAIL_MAX_ATTEMPTS,
    resetTtlSeconds: e.PASSWORD_RESET_TTL_MINUTES * 60,
    verifyTtlSeconds: e.EMAIL_VERIFY_TTL_HOURS * 3_600,
  }));
export type MailConfig = z.output<typeof mailSlice>;
