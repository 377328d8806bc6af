import { dealCreateInputSchema, dealIdSchema, dealSchema, dealUpdateInputSchema } from '@adnet/schemas/deals';
import type { Deal, StoredDeal } from '@adnet/schemas/deals';
import { microCentsToUsd, usdToMicroCents } from '@adnet/schemas/money';
import type { Partner } from '@adnet/schemas/partners';
import { z } from 'zod';
import { AppError, fieldErrors, notFound } from '../../errors.ts';
import { ConflictError } from '../../storage/config-store.ts';
import { cfgIndex } from '../../storage/keys.ts';
import type { AuthedContext } from '../init.ts';
import { roleProcedure, router } from '../init.ts';

const admin = roleProcedure('admin');
const ALL_DEALS = cfgIndex('deals', 'all');
/** The numeric config key of a deal id: claimed with SET NX, so two admins cannot create the same deal id. */
const dealKeyOf = (dealId: string): string => cfgIndex('deal-id', dealId);

const toApi = (d: StoredDeal): Deal => ({
  id: d.id,
  floor_usd: microCentsToUsd(d.floor_micro_cents),
  partner_ids: d.partner_ids,
  campaign_ids: d.campaign_ids,
  created_at: d.created_at,
  updated_at: d.updated_at,
});

/** The partners and campaigns a deal names must exist: an id that names nothing is a 400 naming the field. */
async function checkRefs(
  ctx: AuthedContext,
  fields: { partner_ids?: number[] | undefined; campaign_ids?: number[] | undefined },
): Promise<void> {
  const errors: Record<string, string> = {};
  if (fields.partner_ids) {
    const found = new Set(
      (await ctx.svc.configStore.readMany<Partner>('partner', fields.partner_ids)).map((p) => p.id),
    );
    const missing = fields.partner_ids.filter((id) => !found.has(id));
    if (missing.length) errors.partner_ids = `names no partner: ${missing.join(', ')}`;
  }
  if (fields.campaign_ids) {
    const found = new Set(
      (await ctx.svc.configStore.readMany<{ id: number }>('campaign', fields.campaign_ids)).map((c) => c.id),
    );
    const missing = fields.campaign_ids.filter((id) => !found.has(id));
    if (missing.length) errors.campaign_ids = `names no campaign: ${missing.join(', ')}`;
  }
  if (Object.keys(errors).length) throw fieldErrors(errors);
}

async function keyOf(ctx: AuthedContext, dealId: string): Promise<number> {
  const key = await ctx.svc.configStore.claimant(dealKeyOf(dealId));
  if (key === undefined) throw notFound('Deal');
  return key;
}

/** Private-marketplace deals (docs/openrtb.md, deals): which partners may offer a deal id, which campaigns bid on it, at what floor. */
export const dealsRouter = router({
  createDeal: admin
    .input(dealCreateInputSchema)
    .output(dealSchema)
    .mutation(async ({ ctx, input }) => {
      await checkRefs(ctx, input);
      const key = await ctx.svc.configStore.nextId('deal');
      if (!(await ctx.svc.configStore.claim({ key: dealKeyOf(input.id) }, key)))
        throw new AppError('conflict', `Deal ${input.id} already exists`);
      const now = new Date().toISOString();
      const deal: StoredDeal = {
        key,
        id: input.id,
        floor_micro_cents: usdToMicroCents(input.floor_usd),
        partner_ids: input.partner_ids,
        campaign_ids: input.campaign_ids,
        created_at: now,
        updated_at: now,
      };
      try {
        await ctx.svc.configStore.commit('deal', key, {
          expectedRev: 0,
          value: deal,
          ops: [{ cmd: 'SADD', key: ALL_DEALS, member: key }],
        });
      } catch (e) {
        await ctx.svc.configStore.release(dealKeyOf(input.id));
        throw e;
      }
      ctx.svc.log.info({ event: 'deal.created', dealId: input.id }, 'deal created');
      return toApi(deal);
    }),

  listDeals: admin.output(z.object({ deals: z.array(dealSchema) })).query(async ({ ctx }) => {
    const deals = await ctx.svc.configStore.readIndexed<StoredDeal>('deal', ALL_DEALS);
    return { deals: deals.sort((a, b) => a.key - b.key).map(toApi) };
  }),

  getDeal: admin
    .input(z.object({ id: dealIdSchema }))
    .output(dealSchema)
    .query(async ({ ctx, input }) => {
      const found = await ctx.svc.configStore.read<StoredDeal>('deal', await keyOf(ctx, input.id));
      if (!found) throw notFound('Deal');
      return toApi(found.value);
    }),

  updateDeal: admin
    .input(dealUpdateInputSchema)
    .output(dealSchema)
    .mutation(async ({ ctx, input }) => {
      await checkRefs(ctx, input);
      const updated = await ctx.svc.configStore.update<StoredDeal>(
        'deal',
        await keyOf(ctx, input.id),
        (d) => ({
          value: {
            ...d,
            ...(input.floor_usd !== undefined ? { floor_micro_cents: usdToMicroCents(input.floor_usd) } : {}),
            ...(input.partner_ids ? { partner_ids: input.partner_ids } : {}),
            ...(input.campaign_ids ? { campaign_ids: input.campaign_ids } : {}),
            updated_at: new Date().toISOString(),
          },
        }),
        () => notFound('Deal'),
      );
      ctx.svc.log.info({ event: 'deal.changed', dealId: input.id }, 'deal changed');
      return toApi(updated);
    }),

  deleteDeal: admin
    .input(z.object({ id: dealIdSchema }))
    .output(z.object({ deleted: z.literal(true) }))
    .mutation(async ({ ctx, input }) => {
      const key = await keyOf(ctx, input.id);
      for (let attempt = 0; ; attempt++) {
        const found = await ctx.svc.configStore.read<StoredDeal>('deal', key);
        if (!found) throw notFound('Deal');
        try {
          await ctx.svc.configStore.remove('deal', key, {
            expectedRev: found.rev,
            value: found.value,
            ops: [{ cmd: 'SREM', key: ALL_DEALS, member: key }],
          });
          break;
        } catch (e) {
          if (!(e instanceof ConflictError) || attempt >= 8) throw e;
        }
      }
      // Only once the deal is gone may its id be taken again.
      await ctx.svc.configStore.release(dealKeyOf(input.id));
      ctx.svc.log.info({ event: 'deal.deleted', dealId: input.id }, 'deal deleted');
      return { deleted: true as const };
    }),
});
