import { notificationSettingsSchema } from '@adnet/schemas/accounts';
import { centsToUsd, usdToCents } from '@adnet/schemas/money';
import { roleProcedure, router } from '../init.ts';

const advertiser = roleProcedure('advertiser');

/** The advertiser's notice settings: the low-balance threshold (null: no notice). */
export const notificationsRouter = router({
  get: advertiser.output(notificationSettingsSchema).query(async ({ ctx }) => {
    const cents = await ctx.svc.lowBalance.get(ctx.session.userId);
    return { low_balance_usd: cents === null ? null : centsToUsd(cents) };
  }),
  set: advertiser
    .input(notificationSettingsSchema)
    .output(notificationSettingsSchema)
    .mutation(async ({ ctx, input }) => {
      await ctx.svc.lowBalance.set(
        ctx.session.userId,
        input.low_balance_usd === null ? null : usdToCents(input.low_balance_usd),
      );
      return input;
    }),
});
