import { campaignCreateInputSchema, campaignSchema, campaignUpdateInputSchema, idSchema } from '@adnet/schemas/api';
import type { StoredCampaign } from '@adnet/schemas/api';
import { usdToCents, usdToMicroCents } from '@adnet/schemas/money';
import { z } from 'zod';
import { transition } from '../../domain/campaign-states.ts';
import type { CampaignAction } from '../../domain/campaign-states.ts';
import { AppError, notFound } from '../../errors.ts';
import { advertiserCampaignsIndex, campaignApprovedIndex, listCampaigns, loadOwnedCampaign, withSpend } from '../../repos/campaigns.ts';
import type { AuthedContext } from '../init.ts';
import { roleProcedure, router } from '../init.ts';

const advertiser = roleProcedure('advertiser');
const byId = z.object({ id: idSchema });

async function one(ctx: AuthedContext, c: StoredCampaign) {
  const [withSpent] = await withSpend(ctx.svc, [c]);
  return withSpent as NonNullable<typeof withSpent>;
}

async function move(ctx: AuthedContext, id: number, action: CampaignAction) {
  await loadOwnedCampaign(ctx.svc, ctx.session.userId, id);
  const approvedCreatives = await ctx.svc.redis.scard(campaignApprovedIndex(id));
  const updated = await ctx.svc.configStore.update<StoredCampaign>(
    'campaign',
    id,
    (c) => {
      const result = transition(c.status, action, { approvedCreatives, dailyBudgetCents: c.daily_budget_cents });
      if (!result.ok) throw new AppError('illegal_transition', result.reason);
      return { value: result.changed ? { ...c, status: result.next, updated_at: new Date().toISOString() } : c };
    },
    () => notFound('Campaign'),
  );
  ctx.svc.log.info({ event: 'campaign.state', campaignId: id, action, status: updated.status }, 'campaign state');
  return one(ctx, updated);
}

export const campaignsRouter = router({
  list: advertiser.output(z.object({ campaigns: z.array(campaignSchema) })).query(async ({ ctx }) => ({
    campaigns: await withSpend(ctx.svc, await listCampaigns(ctx.svc, ctx.session.userId)),
  })),

  get: advertiser
    .input(byId)
    .output(campaignSchema)
    .query(async ({ ctx, input }) => one(ctx, await loadOwnedCampaign(ctx.svc, ctx.session.userId, input.id))),

  create: advertiser
    .input(campaignCreateInputSchema)
    .output(campaignSchema)
    .mutation(async ({ ctx, input }) => {
      const id = await ctx.svc.configStore.nextId('campaign');
      const now = new Date().toISOString();
      const campaign: StoredCampaign = {
        id,
        advertiser_id: ctx.session.userId,
        name: input.name,
        vertical: input.vertical,
        format: input.format,
        bid_type: input.bid_type,
        bid_micro_cents: usdToMicroCents(input.bid_usd),
        status: 'draft',
        daily_budget_cents: usdToCents(input.daily_budget_usd),
        geo_include: input.geo_include,
        languages: input.languages,
        device_types: input.device_types,
        created_at: now,
        updated_at: now,
      };
      await ctx.svc.configStore.commit('campaign', id, 0, campaign, [{ cmd: 'SADD', key: advertiserCampaignsIndex(ctx.session.userId), member: id }]);
      ctx.svc.log.info({ event: 'campaign.created', campaignId: id, advertiserId: ctx.session.userId }, 'campaign created');
      return { ...campaign, daily_spent_cents: 0 };
    }),

  update: advertiser
    .input(campaignUpdateInputSchema)
    .output(campaignSchema)
    .mutation(async ({ ctx, input }) => {
      await loadOwnedCampaign(ctx.svc, ctx.session.userId, input.id);
      const updated = await ctx.svc.configStore.update<StoredCampaign>(
        'campaign',
        input.id,
        (c) => {
          if (c.status === 'archived') throw new AppError('illegal_transition', 'An archived campaign cannot be changed');
          const next: StoredCampaign = { ...c, updated_at: new Date().toISOString() };
          if (input.name !== undefined) next.name = input.name;
          if (input.vertical !== undefined) next.vertical = input.vertical;
          if (input.bid_type !== undefined) next.bid_type = input.bid_type;
          if (input.bid_usd !== undefined) next.bid_micro_cents = usdToMicroCents(input.bid_usd);
          if (input.daily_budget_usd !== undefined) next.daily_budget_cents = usdToCents(input.daily_budget_usd);
          if (input.geo_include !== undefined) next.geo_include = input.geo_include;
          if (input.languages !== undefined) next.languages = input.languages;
          if (input.device_types !== undefined) next.device_types = input.device_types;
          return { value: next };
        },
        () => notFound('Campaign'),
      );
      return one(ctx, updated);
    }),

  activate: advertiser
    .input(byId)
    .output(campaignSchema)
    .mutation(({ ctx, input }) => move(ctx, input.id, 'activate')),
  pause: advertiser
    .input(byId)
    .output(campaignSchema)
    .mutation(({ ctx, input }) => move(ctx, input.id, 'pause')),
  archive: advertiser
    .input(byId)
    .output(campaignSchema)
    .mutation(({ ctx, input }) => move(ctx, input.id, 'archive')),
});
