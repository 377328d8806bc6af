import { idSchema } from '@adnet/schemas/api';
import type { ZodType } from 'zod';
import { z } from 'zod';
import type { AuthedContext, roleProcedure } from './init.ts';

const byId = z.object({ id: idSchema });

/**
 * The one enable/disable pair (a partner's, a demand partner's, a zone's pause and resume): two mutations that
 * take `{id}`, set the status and answer the entity.
 */
export function statusPair<T, S extends string>(
  procedure: ReturnType<typeof roleProcedure>,
  output: ZodType<T>,
  set: (ctx: AuthedContext, id: number, status: S) => Promise<T>,
  statuses: { off: S; on: S },
) {
  const to = (status: S) =>
    procedure
      .input(byId)
      .output(output)
      .mutation(({ ctx, input }) => set(ctx, input.id, status));
  return { off: to(statuses.off), on: to(statuses.on) };
}
