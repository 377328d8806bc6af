import {
  demandPartnerCreateInputSchema,
  demandPartnerInputSchemas,
  demandPartnerSchema,
  demandPartnerUpdateInputSchema,
  demandPartnerWithHealthSchema,
} from '@adnet/schemas/demand';
import type { DemandPartner } from '@adnet/schemas/demand';
import { z } from 'zod';
import { definedFields, updateEntity } from '../../repos/owned-entity.ts';
import { cfgIndex } from '../../storage/keys.ts';
import type { AuthedContext } from '../init.ts';
import { configuredInput, roleProcedure, router } from '../init.ts';
import { statusPair } from '../status-pair.ts';

const admin = roleProcedure('admin');
const ALL = cfgIndex('demand_partners', 'all');
/** The set of every demand partner's id, disabled ones included. */
export const DEMAND_PARTNERS = ALL;
/** https, or (DEMAND_ALLOW_LOOPBACK=1, tests and local development) http on loopback: checked with every other field. */
const configured = (which: 'create' | 'update') =>
  configuredInput((config) => demandPartnerInputSchemas(config.demand)[which]);

async function change(ctx: AuthedContext, id: number, patch: Partial<DemandPartner>): Promise<DemandPartner> {
  const ref = { kind: 'demand_partner', id, label: 'Demand partner' } as const;
  const updated = await updateEntity<DemandPartner>(ctx.svc.configStore, ref, { patch });
  ctx.svc.log.info(
    { event: 'demand_partner.changed', demandPartnerId: id, status: updated.status },
    'demand partner changed',
  );
  return updated;
}

const status = statusPair(
  admin,
  demandPartnerSchema,
  (ctx, id, status: DemandPartner['status']) => change(ctx, id, { status }),
  { off: 'disabled', on: 'active' },
);

/** Demand partners (DSPs): where our zones' impressions are offered over OpenRTB 2.5, how fast, for what. */
export const demandPartnersRouter = router({
  createDemandPartner: admin
    .use(configured('create'))
    .input(demandPartnerCreateInputSchema)
    .output(demandPartnerSchema)
    .mutation(async ({ ctx, input }) => {
      const id = await ctx.svc.configStore.nextId('demand_partner');
      const now = new Date().toISOString();
      const p: DemandPartner = {
        id,
        ...input,
        countries: input.countries ?? [],
        status: 'active',
        created_at: now,
        updated_at: now,
      };
      await ctx.svc.configStore.commit('demand_partner', id, {
        expectedRev: 0,
        value: p,
        ops: [{ cmd: 'SADD', key: ALL, member: id }],
      });
      return p;
    }),

  /** Every demand partner with its health: the engines' counts summed, and its circuit. */
  listDemandPartners: admin
    .output(z.object({ demand_partners: z.array(demandPartnerWithHealthSchema) }))
    .query(async ({ ctx }) => {
      const partners = (await ctx.svc.configStore.readIndexed<DemandPartner>('demand_partner', ALL)).sort(
        (a, b) => a.id - b.id,
      );
      const health = await ctx.svc.demandHealth.of(partners.map((p) => p.id));
      return {
        demand_partners: partners.map((p) => ({
          ...p,
          health: health.get(p.id) ?? { counters: {}, circuit: 'closed' as const },
        })),
      };
    }),

  updateDemandPartner: admin
    .use(configured('update'))
    .input(demandPartnerUpdateInputSchema)
    .output(demandPartnerSchema)
    .mutation(({ ctx, input }) => {
      const { id, ...fields } = input;
      return change(ctx, id, definedFields<DemandPartner>(fields));
    }),

  disableDemandPartner: status.off,
  enableDemandPartner: status.on,
});
