import { audienceCreateInputSchema, audienceListSchema, audienceSchema, MAX_AUDIENCES } from '@adnet/schemas/audiences';
import type { StoredAudience } from '@adnet/schemas/audiences';
import { idSchema, okSchema } from '@adnet/schemas/api';
import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { AppError, notFound } from '../../errors.ts';
import { ConflictError } from '../../storage/config-store.ts';
import {
  advertiserAudiencesIndex,
  audienceAnswer,
  campaignsNaming,
  checkAudienceCampaigns,
  listAudiences,
  loadOwnedAudience,
} from '../../repos/audiences.ts';
import { listCampaigns } from '../../repos/campaigns.ts';
import { roleProcedure, router } from '../init.ts';

const advertiser = roleProcedure('advertiser');
const byId = z.object({ id: idSchema });

/** An advertiser's audiences (docs/audiences.md): created and deleted, never changed, so engines may copy them. */
export const audiencesRouter = router({
  create: advertiser
    .input(audienceCreateInputSchema)
    .output(audienceSchema)
    .mutation(async ({ ctx, input }) => {
      const advertiserId = ctx.session.userId;
      const campaignIds = input.source === 'pixel' ? [] : (input.campaign_ids ?? []);
      await checkAudienceCampaigns(ctx.svc, advertiserId, campaignIds);
      if ((await ctx.svc.configStore.countIndexed(advertiserAudiencesIndex(advertiserId))) >= MAX_AUDIENCES)
        throw new AppError('conflict', `An advertiser holds at most ${MAX_AUDIENCES} audiences; delete one first`);
      const id = await ctx.svc.configStore.nextId('audience');
      const audience: StoredAudience = {
        id,
        advertiser_id: advertiserId,
        name: input.name,
        source: input.source,
        campaign_ids: campaignIds,
        lifetime_days: input.lifetime_days,
        // 128 random bits: nobody finds a pixel's token by trying.
        pixel_token: input.source === 'pixel' ? randomBytes(16).toString('base64url') : null,
        created_at: new Date().toISOString(),
      };
      await ctx.svc.configStore.commit('audience', id, {
        expectedRev: 0,
        value: audience,
        ops: [{ cmd: 'SADD', key: advertiserAudiencesIndex(advertiserId), member: id }],
      });
      ctx.svc.log.info({ event: 'audience.created', audienceId: id, advertiserId }, 'audience created');
      return audienceAnswer(ctx.svc, audience);
    }),

  list: advertiser.output(audienceListSchema).query(async ({ ctx }) => ({
    audiences: (await listAudiences(ctx.svc, ctx.session.userId)).map((a) => audienceAnswer(ctx.svc, a)),
  })),

  get: advertiser
    .input(byId)
    .output(audienceSchema)
    .query(async ({ ctx, input }) =>
      audienceAnswer(ctx.svc, (await loadOwnedAudience(ctx.svc, ctx.session.userId, input.id)).value),
    ),

  /**
   * Refused (409) while a campaign includes or excludes it: a campaign whose only included audience went would
   * serve everyone. Memberships already recorded end with their lifetimes.
   */
  delete: advertiser
    .input(byId)
    .output(okSchema)
    .mutation(async ({ ctx, input }) => {
      const advertiserId = ctx.session.userId;
      const found = await loadOwnedAudience(ctx.svc, advertiserId, input.id);
      const naming = campaignsNaming(await listCampaigns(ctx.svc, advertiserId), input.id);
      if (naming.length)
        throw new AppError(
          'conflict',
          `Campaign(s) ${naming.join(', ')} include or exclude this audience; take it off them first`,
        );
      try {
        await ctx.svc.configStore.remove('audience', input.id, {
          expectedRev: found.rev,
          value: found.value,
          ops: [{ cmd: 'SREM', key: advertiserAudiencesIndex(advertiserId), member: input.id }],
        });
      } catch (e) {
        // An audience never changes: only a concurrent delete moves its revision.
        if (e instanceof ConflictError) throw notFound('Audience');
        throw e;
      }
      ctx.svc.log.info({ event: 'audience.deleted', audienceId: input.id, advertiserId }, 'audience deleted');
      return { ok: true as const };
    }),
});
