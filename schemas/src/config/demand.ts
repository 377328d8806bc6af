import { z } from 'zod';
import { bool } from './fields.ts';

/** Demand partners: the engines call them, the admin checks their endpoints. */
export const demandSlice = z
  .object({
    /**
     * Tests and local development only: let demand partners' endpoints be plain http on loopback, and
     * bid requests and notices reach loopback addresses. Without it endpoints must be https on public addresses.
     */
    DEMAND_ALLOW_LOOPBACK: bool.default(false),
  })
  .transform((e) => ({ allowLoopback: e.DEMAND_ALLOW_LOOPBACK }));
export type DemandConfig = z.output<typeof demandSlice>;
