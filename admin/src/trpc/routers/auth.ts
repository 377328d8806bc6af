import { okSchema, registerInputSchema, registerResponseSchema, tokenInputSchema, tokenResponseSchema } from '@adnet/schemas/api';
import { z } from 'zod';
import { DUMMY_HASH, verifyPassword } from '../../auth/password.ts';
import { AppError } from '../../errors.ts';
import { createAccount } from '../../repos/accounts.ts';
import { authedProcedure, ipLimitedProcedure, router } from '../init.ts';

export const authRouter = router({
  register: ipLimitedProcedure
    .input(registerInputSchema)
    .output(registerResponseSchema)
    .mutation(async ({ ctx, input }) => {
      if (!ctx.svc.config.registrationEnabled) throw new AppError('registration_disabled', 'Self sign-up is disabled');
      const user = await createAccount(ctx.svc, input);
      return { user: { id: user.id, role: user.role } };
    }),

  token: ipLimitedProcedure
    .input(tokenInputSchema)
    .output(tokenResponseSchema)
    .mutation(async ({ ctx, input }) => {
      const user = await ctx.svc.users.getByEmail(input.email);
      // Same work whether or not the email exists, so timing does not reveal accounts.
      const valid = await verifyPassword(input.password, user?.passwordHash ?? DUMMY_HASH);
      if (!user || !valid) throw new AppError('invalid_credentials', 'Wrong email or password');
      const { token, expiresAt } = await ctx.svc.tokens.issue(user.id, user.role, ctx.svc.config.tokenTtlSeconds);
      return { token, token_type: 'Bearer' as const, expires_at: new Date(expiresAt).toISOString(), user: { id: user.id, role: user.role } };
    }),

  logout: authedProcedure.output(okSchema).mutation(async ({ ctx }) => {
    await ctx.svc.tokens.revoke(ctx.session.tokenId);
    return { ok: true as const };
  }),

  me: authedProcedure.output(z.object({ id: z.number(), role: z.string(), email: z.string(), token_expires_at: z.string() })).query(async ({ ctx }) => {
    const user = await ctx.svc.users.get(ctx.session.userId);
    if (!user) throw new AppError('unauthorized', 'Account no longer exists');
    return { id: user.id, role: user.role, email: user.email, token_expires_at: new Date(ctx.session.expiresAt).toISOString() };
  }),
});
