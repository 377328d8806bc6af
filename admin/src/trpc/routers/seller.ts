import { sellerSettingsInputSchema, sellerSettingsSchema } from '@adnet/schemas/publisher';
import type { SellerSettings } from '@adnet/schemas/publisher';
import { adsTxtLine } from '../../repos/publisher.ts';
import type { AuthedContext } from '../init.ts';
import { roleProcedure, router } from '../init.ts';

const publisher = roleProcedure('publisher');

async function settings(ctx: AuthedContext): Promise<SellerSettings> {
  const id = ctx.session.userId;
  return {
    seller_id: String(id),
    sellers_json_confidential: await ctx.svc.confidentialSellers.has(id),
    ads_txt_line: adsTxtLine(ctx.svc, id),
  };
}

/** A publisher's seller settings: its seller id, its ads.txt line, and whether sellers.json names it. */
export const sellerRouter = router({
  get: publisher.output(sellerSettingsSchema).query(({ ctx }) => settings(ctx)),
  update: publisher
    .input(sellerSettingsInputSchema)
    .output(sellerSettingsSchema)
    .mutation(async ({ ctx, input }) => {
      await ctx.svc.confidentialSellers.set(ctx.session.userId, input.sellers_json_confidential);
      return settings(ctx);
    }),
});
