import { idSchema } from '@adnet/schemas/api';
import { partnerCreateInputSchema, partnerSchema, partnerUpdateInputSchema } from '@adnet/schemas/partners';
import type { Partner } from '@adnet/schemas/partners';
import { z } from 'zod';
import { notFound } from '../../errors.ts';
import { cfgIndex } from '../../storage/keys.ts';
import type { AuthedContext } from '../init.ts';
import { roleProcedure, router } from '../init.ts';

const admin = roleProcedure('admin');
const ALL_PARTNERS = cfgIndex('partners', 'all');

async function change(ctx: AuthedContext, id: number, patch: Partial<Partner>): Promise<Partner> {
  const updated = await ctx.svc.configStore.update<Partner>(
    'partner',
    id,
    (p) => ({ value: { ...p, ...patch, updated_at: new Date().toISOString() } }),
    () => notFound('Partner'),
  );
  ctx.svc.log.info({ event: 'partner.changed', partnerId: id, status: updated.status }, 'partner changed');
  return updated;
}

/** OpenRTB supply partners: who may send bid requests, from where, how fast. */
export const partnersRouter = router({
  createPartner: admin
    .input(partnerCreateInputSchema)
    .output(partnerSchema)
    .mutation(async ({ ctx, input }) => {
      const id = await ctx.svc.configStore.nextId('partner');
      const now = new Date().toISOString();
      const partner: Partner = { id, ...input, status: 'active', created_at: now, updated_at: now };
      await ctx.svc.configStore.commit('partner', id, {
        expectedRev: 0,
        value: partner,
        ops: [{ cmd: 'SADD', key: ALL_PARTNERS, member: id }],
      });
      return partner;
    }),

  listPartners: admin.output(z.object({ partners: z.array(partnerSchema) })).query(async ({ ctx }) => {
    return {
      partners: (await ctx.svc.configStore.readIndexed<Partner>('partner', ALL_PARTNERS)).sort((a, b) => a.id - b.id),
    };
  }),

  updatePartner: admin
    .input(partnerUpdateInputSchema)
    .output(partnerSchema)
    .mutation(({ ctx, input }) => {
      const { id, ...fields } = input;
      const patch = Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined)) as Partial<Partner>;
      return change(ctx, id, patch);
    }),

  disablePartner: admin
    .input(z.object({ id: idSchema }))
    .output(partnerSchema)
    .mutation(({ ctx, input }) => change(ctx, input.id, { status: 'disabled' })),
  enablePartner: admin
    .input(z.object({ id: idSchema }))
    .output(partnerSchema)
    .mutation(({ ctx, input }) => change(ctx, input.id, { status: 'active' })),
});
