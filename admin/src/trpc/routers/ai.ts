import { aiGenerateInputSchema, aiGenerateResponseSchema } from '@adnet/schemas/ai';
import { buildPrompt, copyLimits, tokenCostCents } from '../../domain/ai-copy.ts';
import { POP_ZONE_FORMATS } from '@adnet/schemas/publisher';
import { AppError, fieldErrors } from '../../errors.ts';
import { loadOwnedCampaign } from '../../repos/campaigns.ts';
import { roleProcedure, router } from '../init.ts';

const advertiser = roleProcedure('advertiser');
/** The spec's limit: 1 generation per 30 s per advertiser. */
const AI_RATE = { limit: 1, periodMs: 30_000 };

export const aiRouter = router({
  generate: advertiser
    .input(aiGenerateInputSchema)
    .output(aiGenerateResponseSchema)
    .mutation(async ({ ctx, input }) => {
      const { svc, session } = ctx;
      const campaign = await loadOwnedCampaign(svc, session.userId, input.id);
      // Checked before the rate limit: asking for nothing to write costs no turn.
      if (POP_ZONE_FORMATS.has(campaign.format))
        throw fieldErrors({
          id: `is a ${campaign.format} campaign: its ad is its landing page, with no copy to write`,
        });
      const rate = await svc.limiter.take(`ai:${session.userId}`, AI_RATE.limit, AI_RATE.periodMs);
      if (!rate.allowed)
        throw new AppError('rate_limited', 'AI generation is limited to 1 request per 30 seconds', {
          retryAfterSeconds: rate.retryAfterSeconds,
        });

      const req = {
        format: campaign.format,
        vertical: campaign.vertical,
        offer: input.offer,
        cta: input.cta,
        geo: input.geo,
        lang: input.lang,
      };
      const messages = buildPrompt(req);
      const provider = svc.copyProvider;
      const prices = {
        inputMicroCentsPer1k: svc.config.ai.priceInputMicroCentsPer1k,
        outputMicroCentsPer1k: svc.config.ai.priceOutputMicroCentsPer1k,
      };
      // Reserve the most this call can cost (every attempt at full output), so the
      // balance never goes below zero however many tokens the provider reports.
      const reserved = tokenCostCents(provider.maxUsage(messages), prices);
      const label = `ai-generate campaign ${campaign.id}`;
      if (reserved > 0) {
        const debit = await svc.ledger.debit(session.userId, reserved, `${label}: reservation`, true);
        if (!debit.ok) {
          throw new AppError(
            'payment_required',
            `Balance ${debit.balanceCents} cents cannot cover the maximum cost of ${reserved} cents of this AI call`,
          );
        }
      }

      let result;
      try {
        result = await provider.generate(req, messages, copyLimits(campaign.format));
      } catch (err) {
        if (reserved > 0) await svc.ledger.credit(session.userId, reserved, `${label}: refund, provider failed`);
        throw err;
      }
      const cost = Math.min(tokenCostCents(result.usage, prices), reserved);
      if (reserved - cost > 0) await svc.ledger.credit(session.userId, reserved - cost, `${label}: unused reservation`);
      svc.log.info(
        { event: 'ai.generated', campaignId: campaign.id, provider: provider.name, ...result.usage, costCents: cost },
        'ai copy generated',
      );
      return { ...result.copy, usage: result.usage, provider: provider.name, cost_cents: cost };
    }),
});
