import { okSchema, passwordChangeInputSchema, registerInputSchema, registerResponseSchema, tokenInputSchema, tokenResponseSchema } from '@adnet/schemas/api';
import { z } from 'zod';
import { AppError, fieldErrors } from '../../errors.ts';
import { createAccount } from '../../repos/accounts.ts';
import type { Services } from '../../services.ts';
import type { UserRecord } from '../../storage/users.ts';
import { authedProcedure, ipLimitedProcedure, router } from '../init.ts';

/** One more attempt on the account's password, or 429 while its back-off runs (a right password included). */
async function takeAttempt(svc: Services, email: string): Promise<void> {
  const gate = await svc.signInBackoff.take(email);
  if (!gate.allowed) {
    throw new AppError('rate_limited', 'Too many failed sign-ins for this account; wait before trying again', { retryAfterSeconds: gate.retryAfterSeconds });
  }
}

/** A hash made at other parameters than today's is replaced while the password is at hand. */
async function rehashIfOld(svc: Services, user: UserRecord, password: string): Promise<void> {
  if (!svc.passwords.needsRehash(user.passwordHash)) return;
  const replaced = await svc.users.replacePasswordHash(user.id, user.passwordHash, await svc.passwords.hash(password));
  if (replaced) svc.log.info({ event: 'password.rehashed', userId: user.id }, 'password rehashed');
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
      if (!ctx.svc.config.registrationEnabled) throw new AppError('registration_disabled', 'Self sign-up is disabled');
      try {
        await createAccount(ctx.svc, input);
      } catch (err) {
        if (!(err instanceof AppError && err.appCode === 'email_taken')) throw err;
        ctx.svc.log.info({ event: 'user.signup_email_taken' }, 'sign-up for a taken email');
      }
      return { ok: true as const };
    }),

  token: ipLimitedProcedure
    .input(tokenInputSchema)
    .output(tokenResponseSchema)
    .mutation(async ({ ctx, input }) => {
      const { svc } = ctx;
      await takeAttempt(svc, input.email);
      const user = await svc.users.getByEmail(input.email);
      // Same work whether or not the email exists, so timing does not reveal accounts.
      const valid = await svc.passwords.verify(input.password, user?.passwordHash ?? svc.passwords.dummyHash);
      if (!user || !valid) throw new AppError('invalid_credentials', 'Wrong email or password');
      await svc.signInBackoff.clear(input.email);
      await rehashIfOld(svc, user, input.password);
      const { token, expiresAt } = await svc.tokens.issue(user.id, user.role, svc.config.tokenTtlSeconds);
      return { token, token_type: 'Bearer' as const, expires_at: new Date(expiresAt).toISOString(), user: { id: user.id, role: user.role } };
    }),

  logout: authedProcedure.output(okSchema).mutation(async ({ ctx }) => {
    await ctx.svc.tokens.revoke(ctx.session.tokenId);
    return { ok: true as const };
  }),

  /** Every token of the account, the one used included. */
  logoutAll: authedProcedure.output(okSchema).mutation(async ({ ctx }) => {
    await ctx.svc.tokens.revokeAll(ctx.session.userId);
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
      await takeAttempt(svc, user.email);
      if (!(await svc.passwords.verify(input.current_password, user.passwordHash))) {
        throw fieldErrors({ current_password: 'is not the current password' });
      }
      await svc.signInBackoff.clear(user.email);
      if (!(await svc.users.replacePasswordHash(user.id, user.passwordHash, await svc.passwords.hash(input.new_password)))) {
        throw new AppError('conflict', 'The password was changed meanwhile; sign in again');
      }
      await svc.tokens.revokeOthers(user.id, session.tokenId);
      svc.log.info({ event: 'password.changed', userId: user.id }, 'password changed');
      return { ok: true as const };
    }),

  me: authedProcedure.output(z.object({ id: z.number(), role: z.string(), email: z.string(), token_expires_at: z.string() })).query(async ({ ctx }) => {
    const user = await ctx.svc.users.get(ctx.session.userId);
    if (!user) throw new AppError('unauthorized', 'Account no longer exists');
    return { id: user.id, role: user.role, email: user.email, token_expires_at: new Date(ctx.session.expiresAt).toISOString() };
  }),
});
