import {
  videoAttachInputSchema,
  videoGenerateInputSchema,
  videoJobSchema,
  videoStartResponseSchema,
} from '@adnet/schemas/ai';
import { creativeCreatedSchema, idSchema, MAX_VIDEO_DURATION_S, VIDEO_FORMATS } from '@adnet/schemas/api';
import { z } from 'zod';
import { checkCreative } from '../../domain/creative-rules.ts';
import { AppError, fieldErrors, forbidden, notFound } from '../../errors.ts';
import { loadOwnedCampaign } from '../../repos/campaigns.ts';
import { saveCreative } from '../../repos/creatives.ts';
import type { Services } from '../../services.ts';
import type { VideoJob } from '../../video/job-store.ts';
import { VideoProviderError } from '../../video/providers.ts';
import { roleProcedure, router } from '../init.ts';

const advertiser = roleProcedure('advertiser');
/** The spec's limit: 1 video request per 5 s per user. */
const VIDEO_RATE = { limit: 1, periodMs: 5_000 };

async function loadOwnedJob(svc: Services, advertiserId: number, id: number): Promise<VideoJob> {
  const job = await svc.videoJobs.get(id);
  if (!job) throw notFound('Video job');
  if (job.advertiser_id !== advertiserId) throw forbidden();
  return job;
}

const view = (job: VideoJob): z.infer<typeof videoJobSchema> => {
  const { advertiser_id: _a, provider: _p, provider_job_id: _j, ...rest } = job;
  return rest;
};

export const videoRouter = router({
  generate: advertiser
    .input(videoGenerateInputSchema)
    .output(videoStartResponseSchema)
    .mutation(async ({ ctx, input }) => {
      const { svc, session } = ctx;
      const campaign = await loadOwnedCampaign(svc, session.userId, input.campaign_id);
      if (campaign.status === 'archived')
        throw new AppError('illegal_transition', 'Cannot generate videos for an archived campaign');
      const rate = await svc.limiter.take(`video:${session.userId}`, VIDEO_RATE.limit, VIDEO_RATE.periodMs);
      if (!rate.allowed)
        throw new AppError('rate_limited', 'Video generation is limited to 1 request per 5 seconds', {
          retryAfterSeconds: rate.retryAfterSeconds,
        });

      const cost = svc.config.video.costCents;
      const id = await svc.videoJobs.nextId();
      if (cost > 0) {
        const debit = await svc.ledger.debit(session.userId, cost, `video job ${id}: charge`, true);
        if (!debit.ok)
          throw new AppError(
            'payment_required',
            `Balance ${debit.balanceCents} cents cannot cover the video cost of ${cost} cents`,
          );
      }
      let providerJobId: string;
      try {
        providerJobId = await svc.videoProvider.create({
          jobId: id,
          avatarId: input.avatar_id,
          voiceId: input.voice_id,
          script: input.script,
          language: input.language,
          orientation: input.orientation,
        });
      } catch (err) {
        if (cost > 0)
          await svc.ledger.credit(session.userId, cost, `video job ${id}: refund, provider refused the job`);
        if (err instanceof VideoProviderError)
          throw new AppError('bad_gateway', `Video job not started: ${err.message}`, { cause: err });
        throw err;
      }
      const now = Date.now();
      await svc.videoJobs.create(
        id,
        {
          advertiser_id: session.userId,
          campaign_id: campaign.id,
          provider: svc.videoProvider.name,
          provider_job_id: providerJobId,
          orientation: input.orientation,
          cost_cents: cost,
          created_at: new Date(now).toISOString(),
        },
        now + svc.config.video.pollIntervalMs,
      );
      svc.log.info(
        { event: 'video.started', jobId: id, campaignId: campaign.id, provider: svc.videoProvider.name },
        'video job started',
      );
      return { ok: true as const, job_id: id, status: 'processing' as const, cost_cents: cost };
    }),

  status: advertiser
    .input(z.object({ job_id: idSchema }))
    .output(videoJobSchema)
    .query(async ({ ctx, input }) => view(await loadOwnedJob(ctx.svc, ctx.session.userId, input.job_id))),

  /** A completed video becomes a creative of a video campaign, through the same checks as an upload. */
  attach: advertiser
    .input(videoAttachInputSchema)
    .output(creativeCreatedSchema)
    .mutation(async ({ ctx, input }) => {
      const { svc, session } = ctx;
      const job = await loadOwnedJob(svc, session.userId, input.job_id);
      const campaign = await loadOwnedCampaign(svc, session.userId, input.campaign_id);
      if (job.status !== 'completed' || !job.video_url)
        throw new AppError(
          'illegal_transition',
          `Video job ${job.job_id} is ${job.status}; only a completed video can be attached`,
        );
      if (campaign.status === 'archived')
        throw new AppError('illegal_transition', 'Cannot add creatives to an archived campaign');
      if (!VIDEO_FORMATS.has(campaign.format))
        throw fieldErrors({ campaign_id: 'must be a video or floating_video campaign' });
      const fields = {
        title: input.title,
        body: input.body,
        landing_url: input.landing_url,
        cta_text: input.cta_text,
        video_url: job.video_url,
        orientation: job.orientation,
      };
      const errors = checkCreative(campaign.format, fields, { kind: 'none' });
      if (Object.keys(errors).length > 0) throw fieldErrors(errors);
      return saveCreative(svc, campaign, {
        title: input.title ?? null,
        body: input.body ?? null,
        landing_url: input.landing_url,
        cta_text: input.cta_text ?? null,
        image_url: null,
        image_width: null,
        image_height: null,
        video_url: job.video_url,
        // The provider says how long the video it made is; a length outside 1-600 s is not believed (the default then holds).
        duration_s:
          job.duration_sec !== null && job.duration_sec >= 1 && job.duration_sec <= MAX_VIDEO_DURATION_S
            ? Math.round(job.duration_sec)
            : null,
        orientation: job.orientation,
      });
    }),
});
