import {
  balanceSchema,
  postbackFailureReasonSchema,
  profileSchema,
  profileUpdateInputSchema,
} from '@adnet/schemas/api';
import type { Profile } from '@adnet/schemas/api';
import { z } from 'zod';
import { newSecret } from '../../auth/token-format.ts';
import { postbackTarget } from '../../domain/postback-rules.ts';
import { AppError } from '../../errors.ts';
import { callTracker } from '../../postback/tracker-call.ts';
import type { AuthedContext } from '../init.ts';
import { roleProcedure, router } from '../init.ts';

const advertiser = roleProcedure('advertiser');

async function profile(ctx: AuthedContext): Promise<Profile> {
  const user = await ctx.svc.users.get(ctx.session.userId);
  if (!user) throw new AppError('unauthorized', 'Account no longer exists');
  return {
    id: user.id,
    email: user.email,
    role: user.role,
    postback_secret: user.postbackSecret,
    postback_url: user.postbackUrl,
    created_at: user.createdAt,
  };
}

export const balanceRouter = router({
  get: advertiser
    .input(z.object({ limit: z.coerce.number().int().min(1).max(1000).default(100) }).optional())
    .output(balanceSchema)
    .query(async ({ ctx, input }) => {
      const [balance, ledger] = await Promise.all([
        ctx.svc.ledger.balance(ctx.session.userId),
        ctx.svc.ledger.entries(ctx.session.userId, input?.limit ?? 100),
      ]);
      return { balance_cents: balance, ledger };
    }),
});

export const profileRouter = router({
  get: advertiser.output(profileSchema).query(({ ctx }) => profile(ctx)),

  update: advertiser
    .input(profileUpdateInputSchema)
    .output(profileSchema)
    .mutation(async ({ ctx, input }) => {
      if (input.postback_url !== undefined) await ctx.svc.users.setPostbackUrl(ctx.session.userId, input.postback_url);
      return profile(ctx);
    }),

  /** Calls the postback URL pattern once with sample values, so the cabinet can show what the tracker answers. */
  testPostback: advertiser
    .output(
      z.object({
        url: z.string(),
        ok: z.boolean(),
        status: z.number().int().nullable(),
        reason: postbackFailureReasonSchema.nullable(),
        error: z.string().nullable(),
      }),
    )
    .mutation(async ({ ctx }) => {
      const { postback_url: pattern } = await profile(ctx);
      if (!pattern) throw new AppError('illegal_transition', 'Set a postback URL first');
      const rate = await ctx.svc.limiter.take(`pbtest:${ctx.session.userId}`, 1, 5_000);
      if (!rate.allowed)
        throw new AppError('rate_limited', 'One test postback per 5 seconds', {
          retryAfterSeconds: rate.retryAfterSeconds,
        });
      const target = postbackTarget(pattern, {
        click_id: `test-${newSecret().slice(0, 16)}`,
        payout_cents: 0,
        status: 'approved',
        geo: 'us',
        device: 'desktop',
        os: 'windows',
        browser: 'chrome',
        vertical: 'other',
        campaign_id: 0,
        format: 'banner',
      });
      const answer = await callTracker(ctx.svc, target);
      if (!answer.ok)
        ctx.svc.log.info(
          {
            event: 'postback.test_failed',
            requestId: ctx.req.requestId,
            userId: ctx.session.userId,
            reason: answer.reason,
            detail: answer.detail,
          },
          'test postback failed',
        );
      const { ok, status, reason, error } = answer;
      return { url: target.ok ? target.url : pattern, ok, status, reason, error };
    }),

  rotatePostbackSecret: advertiser.output(profileSchema).mutation(async ({ ctx }) => {
    await ctx.svc.users.setPostbackSecret(ctx.session.userId, newSecret());
    ctx.svc.log.info({ event: 'postback_secret.rotated', userId: ctx.session.userId }, 'postback secret rotated');
    return profile(ctx);
  }),
});
