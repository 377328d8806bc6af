import {
  okSchema,
  passwordChangeInputSchema,
  registerInputSchema,
  registerResponseSchema,
  sessionResponseSchema,
  tokenInputSchema,
  tokenResponseSchema,
} from '@adnet/schemas/api';
import type { TokenInput } from '@adnet/schemas/api';
import {
  passwordResetConfirmInputSchema,
  passwordResetInputSchema,
  verifyEmailInputSchema,
} from '@adnet/schemas/accounts';
import { createHash } from 'node:crypto';
import { z } from 'zod';
import { passwordBinding } from '../../storage/one-time-tokens.ts';
import { AppError, fieldErrors } from '../../errors.ts';
import { createAccount } from '../../repos/accounts.ts';
import { currentModerationEta } from '../../repos/creatives.ts';
import type { Services } from '../../services.ts';
import type { UserRecord } from '../../storage/users.ts';
import { authedProcedure, checkCookieRequest, ipLimitedProcedure, router } from '../init.ts';
import type { AuthedContext, Context } from '../init.ts';
import { clearedSessionCookie, sessionCookie } from '../../auth/session-cookie.ts';
import { networkSubject } from '../../auth/client-address.ts';

/**
 * One more attempt on the account's password from the client's network, or 429 while that network's
 * back-off runs, or while the account-wide limit holds and the network never signed in to the account
 * (a right password included, either way).
 */
async function takeAttempt(svc: Services, email: string, ip: string): Promise<void> {
  const gate = await svc.signInBackoff.take(email, networkSubject(ip));
  if (!gate.allowed) {
    if (gate.scope === 'account')
      svc.log.warn(
        { event: 'signin.account_limit' },
        'sign-in attempts on one account from many networks: unknown networks wait',
      );
    throw new AppError('rate_limited', 'Too many failed sign-ins for this account; wait before trying again', {
      retryAfterSeconds: gate.retryAfterSeconds,
    });
  }
}

/** A hash made at other parameters than today's is replaced while the password is at hand. */
async function rehashIfOld(svc: Services, user: UserRecord, password: string): Promise<void> {
  if (!svc.passwords.needsRehash(user.passwordHash)) return;
  const replaced = await svc.users.replacePasswordHash(user.id, user.passwordHash, await svc.passwords.hash(password));
  if (replaced) svc.log.info({ event: 'password.rehashed', userId: user.id }, 'password rehashed');
}

/** Checks the password (under the back-off) and issues a session token. */
async function signIn(
  ctx: Context,
  input: TokenInput,
): Promise<{ token: string; expiresAt: number; user: UserRecord }> {
  const { svc } = ctx;
  await takeAttempt(svc, input.email, ctx.req.ip);
  const user = await svc.users.getByEmail(input.email);
  // Same work whether or not the email exists, so timing does not reveal accounts.
  const valid = await svc.passwords.verify(input.password, user?.passwordHash ?? svc.passwords.dummyHash);
  if (!user || !valid) throw new AppError('invalid_credentials', 'Wrong email or password');
  await svc.signInBackoff.succeeded(input.email, networkSubject(ctx.req.ip));
  await rehashIfOld(svc, user, input.password);
  const { token, expiresAt } = await svc.tokens.issue(user.id, user.role, svc.config.admin.tokenTtlSeconds);
  return { token, expiresAt, user };
}

/** A session the cookie carried ends with its cookie. */
function dropCookie(ctx: AuthedContext): void {
  if (ctx.viaCookie) ctx.setCookies.push(clearedSessionCookie(ctx.req.https));
}

export const authRouter = router({
  /**
   * The same answer whether the email is new or taken, so sign-up confirms no account: a taken
   * email is hashed and refused in the same time as a new one is stored.
   */
  register: ipLimitedProcedure
    .input(registerInputSchema)
    .output(registerResponseSchema)
    .mutation(async ({ ctx, input }) => {
      if (!ctx.svc.config.admin.registrationEnabled)
        throw new AppError('registration_disabled', 'Self sign-up is disabled');
      try {
        const user = await createAccount(ctx.svc, input);
        await ctx.svc.notifier.notify({ kind: 'verify_email', user_id: user.id });
      } catch (err) {
        if (!(err instanceof AppError && err.appCode === 'email_taken')) throw err;
        ctx.svc.log.info({ event: 'user.signup_email_taken' }, 'sign-up for a taken email');
        // The owner hears of it by email; the caller gets the same answer as for a new address.
        const owner = await ctx.svc.users.getByEmail(input.email);
        if (owner)
          await ctx.svc.notifier.notify(
            { kind: 'signup_existing', user_id: owner.id },
            { once: { key: `signup:${owner.id}`, ttlMs: 3_600_000 } },
          );
      }
      return { ok: true as const };
    }),

  token: ipLimitedProcedure
    .input(tokenInputSchema)
    .output(tokenResponseSchema)
    .mutation(async ({ ctx, input }) => {
      const { token, expiresAt, user } = await signIn(ctx, input);
      return {
        token,
        token_type: 'Bearer' as const,
        expires_at: new Date(expiresAt).toISOString(),
        user: { id: user.id, role: user.role },
      };
    }),

  /**
   * The cabinet's sign-in: the token goes into an HttpOnly cookie (auth/session-cookie.ts) and never into
   * the answer, so no script on the origin can read it. Under the cookie's CSRF rule, so another site
   * cannot sign a visitor in to an account of its choosing. tRPC only: API clients use `token`.
   */
  session: ipLimitedProcedure
    .input(tokenInputSchema)
    .output(sessionResponseSchema)
    .mutation(async ({ ctx, input }) => {
      checkCookieRequest(ctx, true);
      const { token, expiresAt, user } = await signIn(ctx, input);
      ctx.setCookies.push(sessionCookie(token, (expiresAt - Date.now()) / 1000, ctx.req.https));
      return {
        expires_at: new Date(expiresAt).toISOString(),
        user: { id: user.id, role: user.role, email: user.email },
      };
    }),

  logout: authedProcedure.output(okSchema).mutation(async ({ ctx }) => {
    await ctx.svc.tokens.revoke(ctx.session.tokenId);
    dropCookie(ctx);
    return { ok: true as const };
  }),

  /** Every token of the account, the one used included. */
  logoutAll: authedProcedure.output(okSchema).mutation(async ({ ctx }) => {
    await ctx.svc.tokens.revokeAll(ctx.session.userId);
    dropCookie(ctx);
    ctx.svc.log.info({ event: 'tokens.revoked_all', userId: ctx.session.userId }, 'signed out everywhere');
    return { ok: true as const };
  }),

  /** Needs the current password (under the account's sign-in back-off); every other token is revoked. */
  changePassword: authedProcedure
    .input(passwordChangeInputSchema)
    .output(okSchema)
    .mutation(async ({ ctx, input }) => {
      const { svc, session } = ctx;
      const user = await svc.users.get(session.userId);
      if (!user) throw new AppError('unauthorized', 'Account no longer exists');
      await takeAttempt(svc, user.email, ctx.req.ip);
      if (!(await svc.passwords.verify(input.current_password, user.passwordHash))) {
        throw fieldErrors({ current_password: 'is not the current password' });
      }
      await svc.signInBackoff.succeeded(user.email, networkSubject(ctx.req.ip));
      if (
        !(await svc.users.replacePasswordHash(user.id, user.passwordHash, await svc.passwords.hash(input.new_password)))
      ) {
        throw new AppError('conflict', 'The password was changed meanwhile; sign in again');
      }
      await svc.tokens.revokeOthers(user.id, session.tokenId);
      svc.log.info({ event: 'password.changed', userId: user.id }, 'password changed');
      await svc.notifier.notify({ kind: 'password_changed', user_id: user.id });
      return { ok: true as const };
    }),

  me: authedProcedure
    .output(
      z.object({
        id: z.number(),
        role: z.string(),
        email: z.string(),
        email_verified: z.boolean(),
        /** A session's expiry; null for an API key, which lasts until revoked. */
        token_expires_at: z.string().nullable(),
        /**
         * How long a creative uploaded now waits for review, in seconds (MODERATION_ETA_* and the queue): the one
         * moderation time the cabinet and the emails quote.
         */
        moderation_eta_seconds: z.number().int(),
      }),
    )
    .query(async ({ ctx }) => {
      const user = await ctx.svc.users.get(ctx.session.userId);
      if (!user) throw new AppError('unauthorized', 'Account no longer exists');
      return {
        id: user.id,
        role: user.role,
        email: user.email,
        email_verified: user.emailVerifiedAt !== undefined,
        token_expires_at: ctx.session.apiKey ? null : new Date(ctx.session.expiresAt).toISOString(),
        moderation_eta_seconds: await currentModerationEta(ctx.svc),
      };
    }),

  /** The link's token from the verification email; single use. */
  verifyEmail: ipLimitedProcedure
    .input(verifyEmailInputSchema)
    .output(okSchema)
    .mutation(async ({ ctx, input }) => {
      const claim = await ctx.svc.oneTimeTokens.consume('verify', input.token);
      const user = claim && (await ctx.svc.users.get(claim.userId));
      if (!claim || !user || user.email !== claim.bind) throw fieldErrors({ token: 'is invalid or expired' });
      await ctx.svc.users.markEmailVerified(user.id);
      ctx.svc.log.info({ event: 'email.verified', userId: user.id }, 'email verified');
      return { ok: true as const };
    }),

  /** Another verification email for the signed-in account (at most one per 10 minutes). */
  resendVerification: authedProcedure.output(okSchema).mutation(async ({ ctx }) => {
    const user = await ctx.svc.users.get(ctx.session.userId);
    if (user && !user.emailVerifiedAt) {
      await ctx.svc.notifier.notify(
        { kind: 'verify_email', user_id: user.id },
        { once: { key: `verify:${user.id}`, ttlMs: 600_000 } },
      );
    }
    return { ok: true as const };
  }),

  /**
   * 202 whatever the email: the request only queues a notice, and the mail worker looks the address up,
   * so neither the answer nor its timing tells whether an account exists. At most 3 emails per address
   * per hour (counted for unknown addresses too), beside the per-client limit.
   */
  passwordReset: ipLimitedProcedure
    .input(passwordResetInputSchema)
    .output(okSchema)
    .mutation(async ({ ctx, input }) => {
      const subject = createHash('sha256').update(input.email).digest('base64url').slice(0, 22);
      const gate = await ctx.svc.limiter.take(`reset:${subject}`, 3, 3_600_000);
      if (gate.allowed) await ctx.svc.notifier.notify({ kind: 'password_reset', email: input.email });
      return { ok: true as const };
    }),

  /**
   * Sets a new password with the emailed link's token: single use, expiring (PASSWORD_RESET_TTL_MINUTES),
   * void once the password changed by any means. Revokes every session and API key of the account.
   */
  passwordResetConfirm: ipLimitedProcedure
    .input(passwordResetConfirmInputSchema)
    .output(okSchema)
    .mutation(async ({ ctx, input }) => {
      const { svc } = ctx;
      const claim = await svc.oneTimeTokens.consume('reset', input.token);
      const user = claim && (await svc.users.get(claim.userId));
      if (!claim || !user || passwordBinding(user.passwordHash) !== claim.bind)
        throw fieldErrors({ token: 'is invalid or expired' });
      if (
        !(await svc.users.replacePasswordHash(user.id, user.passwordHash, await svc.passwords.hash(input.password)))
      ) {
        throw fieldErrors({ token: 'is invalid or expired' });
      }
      await svc.tokens.revokeAll(user.id);
      // Following the link proved the mailbox, and the account starts afresh.
      await svc.users.markEmailVerified(user.id);
      // The mailbox's owner is on this network: it may sign in even while the account-wide limit holds.
      await svc.signInBackoff.succeeded(user.email, networkSubject(ctx.req.ip));
      svc.log.info({ event: 'password.reset', userId: user.id }, 'password reset; every token revoked');
      await svc.notifier.notify({ kind: 'password_changed', user_id: user.id });
      return { ok: true as const };
    }),
});
