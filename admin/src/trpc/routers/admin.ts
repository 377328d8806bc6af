import {
  adminCampaignSummarySchema,
  adminCampaignsInputSchema,
  creativeSchema,
  creditInputSchema,
  idSchema,
  reasonInputSchema,
} from '@adnet/schemas/api';
import type { Creative } from '@adnet/schemas/api';
import { moderationItemSchema } from '@adnet/schemas/admin-directory';
import { z } from 'zod';
import { AppError, notFound } from '../../errors.ts';
import { campaignApprovedIndex, listCampaigns } from '../../repos/campaigns.ts';
import type { IndexOp } from '../../storage/config-store.ts';
import { CFG_MODERATION_QUEUE } from '../../storage/keys.ts';
import type { AuthedContext } from '../init.ts';
import { roleProcedure, router } from '../init.ts';
import { moderationItems } from './admin-directory.ts';

const admin = roleProcedure('admin');

async function moderate(
  ctx: AuthedContext,
  id: number,
  verdict: { status: 'approved' } | { status: 'rejected'; reason: string },
) {
  const updated = await ctx.svc.configStore.update<Creative>(
    'creative',
    id,
    (c) => {
      if (c.status !== 'pending_moderation')
        throw new AppError('illegal_transition', `Creative is already ${c.status}`);
      const ops: IndexOp[] = [{ cmd: 'ZREM', key: CFG_MODERATION_QUEUE, member: id }];
      if (verdict.status === 'approved')
        ops.push({ cmd: 'SADD', key: campaignApprovedIndex(c.campaign_id), member: id });
      return {
        value: {
          ...c,
          status: verdict.status,
          rejection_reason: verdict.status === 'rejected' ? verdict.reason : null,
          moderated_at: new Date().toISOString(),
        },
        ops,
      };
    },
    () => notFound('Creative'),
  );
  ctx.svc.log.info(
    { event: 'creative.moderated', creativeId: id, status: updated.status, by: ctx.session.userId },
    'creative moderated',
  );
  await ctx.svc.notifier.notify({
    kind: 'creative_moderated',
    user_id: updated.advertiser_id,
    creative_id: updated.id,
    campaign_id: updated.campaign_id,
    title: updated.title ?? `creative #${updated.id}`,
    status: verdict.status,
    reason: updated.rejection_reason,
  });
  return updated;
}

const advertiserSummary = z.object({
  id: z.number(),
  email: z.string(),
  balance_cents: z.number().int(),
  created_at: z.string(),
});

/** Every advertiser's id, read a page at a time. */
async function allAdvertiserIds(ctx: AuthedContext): Promise<number[]> {
  const ids: number[] = [];
  for (let offset = 0; ; offset += 500) {
    const page = await ctx.svc.users.listByRole('advertiser', offset, 500);
    ids.push(...page.map((u) => u.id));
    if (page.length < 500) return ids;
  }
}

export const adminRouter = router({
  moderationQueue: admin
    .input(z.object({ limit: z.coerce.number().int().min(1).max(500).default(100) }).optional())
    .output(z.object({ creatives: z.array(moderationItemSchema) }))
    .query(async ({ ctx, input }) => ({ creatives: await moderationItems(ctx.svc, input?.limit ?? 100) })),

  approveCreative: admin
    .input(z.object({ id: idSchema }))
    .output(creativeSchema)
    .mutation(({ ctx, input }) => moderate(ctx, input.id, { status: 'approved' })),

  rejectCreative: admin
    .input(reasonInputSchema)
    .output(creativeSchema)
    .mutation(({ ctx, input }) => moderate(ctx, input.id, { status: 'rejected', reason: input.reason })),

  listAdvertisers: admin
    .input(
      z
        .object({
          offset: z.coerce.number().int().min(0).default(0),
          limit: z.coerce.number().int().min(1).max(500).default(100),
        })
        .optional(),
    )
    .output(z.object({ advertisers: z.array(advertiserSummary) }))
    .query(async ({ ctx, input }) => {
      const users = await ctx.svc.users.listByRole('advertiser', input?.offset ?? 0, input?.limit ?? 100);
      const balances = await Promise.all(users.map((u) => ctx.svc.ledger.balance(u.id)));
      return {
        advertisers: users.map((u, i) => ({
          id: u.id,
          email: u.email,
          balance_cents: balances[i] ?? 0,
          created_at: u.createdAt,
        })),
      };
    }),

  /** Campaigns by name, for admins to pick (deals): one advertiser's, or every advertiser's; an unknown advertiser has none. */
  listCampaigns: admin
    .input(adminCampaignsInputSchema)
    .output(z.object({ campaigns: z.array(adminCampaignSummarySchema) }))
    .query(async ({ ctx, input }) => {
      const advertisers = input?.advertiser_id ? [input.advertiser_id] : await allAdvertiserIds(ctx);
      const lists = await Promise.all(advertisers.map((id) => listCampaigns(ctx.svc, id)));
      return {
        campaigns: lists
          .flat()
          .sort((a, b) => a.id - b.id)
          .map(({ id, advertiser_id, name, status, format }) => ({ id, advertiser_id, name, status, format })),
      };
    }),

  creditAdvertiser: admin
    .input(creditInputSchema)
    .output(z.object({ advertiser_id: z.number(), balance_cents: z.number().int(), entry_id: z.string() }))
    .mutation(async ({ ctx, input }) => {
      const user = await ctx.svc.users.get(input.id);
      if (!user || user.role !== 'advertiser') throw notFound('Advertiser');
      const result = await ctx.svc.ledger.credit(
        user.id,
        input.amount_cents,
        input.reason ?? `credit by admin ${ctx.session.userId}`,
      );
      if (!result.ok) throw new AppError('internal', 'Credit was not recorded');
      ctx.svc.log.info(
        { event: 'balance.credited', advertiserId: user.id, cents: input.amount_cents, by: ctx.session.userId },
        'balance credited',
      );
      return { advertiser_id: user.id, balance_cents: result.balanceCents, entry_id: result.entryId };
    }),
});
