import { apiKeyCreateInputSchema, apiKeyCreatedSchema, apiKeySchema } from '@adnet/schemas/accounts';
import { idSchema, okSchema } from '@adnet/schemas/api';
import { z } from 'zod';
import { AppError, notFound } from '../../errors.ts';
import { MAX_KEYS_PER_USER } from '../../storage/api-keys.ts';
import { authedProcedure, router } from '../init.ts';

/** API keys of the signed-in account. No API key may call these (auth/api-key-scopes.ts). */
export const keysRouter = router({
  create: authedProcedure
    .input(apiKeyCreateInputSchema)
    .output(apiKeyCreatedSchema)
    .mutation(async ({ ctx, input }) => {
      const { session, svc } = ctx;
      const made = await svc.apiKeys.create(session.userId, session.role, input.name, input.scopes);
      if (!made) throw new AppError('conflict', `An account holds at most ${MAX_KEYS_PER_USER} keys; revoke one first`);
      svc.log.info(
        { event: 'apikey.created', userId: session.userId, keyId: made.record.id, scopes: input.scopes },
        'API key created',
      );
      return { ...made.record, key: made.key };
    }),

  list: authedProcedure
    .output(z.object({ keys: z.array(apiKeySchema) }))
    .query(async ({ ctx }) => ({ keys: await ctx.svc.apiKeys.list(ctx.session.userId) })),

  revoke: authedProcedure
    .input(z.object({ id: idSchema }))
    .output(okSchema)
    .mutation(async ({ ctx, input }) => {
      if (!(await ctx.svc.apiKeys.revoke(ctx.session.userId, input.id))) throw notFound('API key');
      ctx.svc.log.info({ event: 'apikey.revoked', userId: ctx.session.userId, keyId: input.id }, 'API key revoked');
      return { ok: true as const };
    }),
});
