import { partnerCreateInputSchema, partnerSchema, partnerUpdateInputSchema } from '@adnet/schemas/partners';
import type { Partner } from '@adnet/schemas/partners';
import { z } from 'zod';
import { definedFields, updateEntity } from '../../repos/owned-entity.ts';
import { cfgIndex } from '../../storage/keys.ts';
import type { AuthedContext } from '../init.ts';
import { roleProcedure, router } from '../init.ts';
import { statusPair } from '../status-pair.ts';

const admin = roleProcedure('admin');
const ALL_PARTNERS = cfgIndex('partners', 'all');

async function change(ctx: AuthedContext, id: number, patch: Partial<Partner>): Promise<Partner> {
  const updated = await updateEntity<Partner>(
    ctx.svc.configStore,
    { kind: 'partner', id, label: 'Partner' },
    { patch },
  );
  ctx.svc.log.info({ event: 'partner.changed', partnerId: id, status: updated.status }, 'partner changed');
  return updated;
}

const status = statusPair(admin, partnerSchema, (ctx, id, status: Partner['status']) => change(ctx, id, { status }), {
  off: 'disabled',
  on: 'active',
});

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
      return change(ctx, id, definedFields<Partner>(fields));
    }),

  disablePartner: status.off,
  enablePartner: status.on,
});
