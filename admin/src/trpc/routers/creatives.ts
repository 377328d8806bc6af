import { creativeCreatedSchema, creativeFieldsSchema, creativeSchema, idSchema } from '@adnet/schemas/api';
import type { CreativeFields } from '@adnet/schemas/api';
import { z } from 'zod';
import { checkCreative, defaultOrientation } from '../../domain/creative-rules.ts';
import type { ImageInput } from '../../domain/creative-rules.ts';
import { probeImage } from '../../domain/image-probe.ts';
import { AppError, fieldErrors, forbidden, zodFieldErrors } from '../../errors.ts';
import { loadOwnedCampaign } from '../../repos/campaigns.ts';
import { listCampaignCreatives, loadCreative, saveCreative } from '../../repos/creatives.ts';
import { roleProcedure, router } from '../init.ts';

const advertiser = roleProcedure('advertiser');
const TEXT_FIELDS = ['title', 'body', 'landing_url', 'video_url', 'cta_text', 'orientation'] as const;

async function readImage(part: ReturnType<FormData['get']>, maxBytes: number): Promise<ImageInput | 'not_a_file'> {
  if (part === null || part === '') return { kind: 'none' };
  if (typeof part === 'string') return 'not_a_file';
  if (part.size === 0) return { kind: 'none' };
  if (part.size > maxBytes) return { kind: 'too_large', maxBytes };
  const info = probeImage(new Uint8Array(await part.arrayBuffer()));
  return info ? { kind: 'ok', info } : { kind: 'unreadable' };
}

export const creativesRouter = router({
  /** multipart/form-data: the spec's creative fields plus `campaign_id` (the REST path supplies it). */
  create: advertiser
    .input(z.instanceof(FormData, { message: 'must be multipart/form-data' }))
    .output(creativeCreatedSchema)
    .mutation(async ({ ctx, input: form }) => {
      const campaignId = idSchema.safeParse(form.get('campaign_id') ?? undefined);
      if (!campaignId.success) throw fieldErrors({ campaign_id: 'must be a positive integer' });
      const campaign = await loadOwnedCampaign(ctx.svc, ctx.session.userId, campaignId.data);
      if (campaign.status === 'archived') throw new AppError('illegal_transition', 'Cannot add creatives to an archived campaign');

      const errors: Record<string, string> = {};
      const text: Record<string, string> = {};
      for (const name of TEXT_FIELDS) {
        const v = form.get(name);
        if (v === null) continue;
        if (typeof v === 'string') text[name] = v;
        else errors[name] = 'must be a text field, not a file';
      }
      const image = await readImage(form.get('image'), ctx.svc.config.imageMaxBytes);
      if (image === 'not_a_file') errors.image = 'must be a file upload';
      const fields = creativeFieldsSchema.safeParse(text);
      if (!fields.success) Object.assign(errors, zodFieldErrors(fields.error));
      // Format rules run even when a field failed its own check, so one answer names every problem;
      // the more specific message already recorded for a field wins.
      const candidate = fields.success ? fields.data : (text as CreativeFields);
      const formatErrors = checkCreative(campaign.format, candidate, image === 'not_a_file' ? { kind: 'none' } : image);
      for (const [k, v] of Object.entries(formatErrors)) errors[k] ??= v;
      if (Object.keys(errors).length > 0 || !fields.success || image === 'not_a_file') throw fieldErrors(errors);

      let imageUrl: string | null = null;
      let size: { w: number; h: number } | null = null;
      if (image.kind === 'ok') {
        const part = form.get('image') as File;
        const name = await ctx.svc.media.save(Buffer.from(await part.arrayBuffer()), image.info.type);
        imageUrl = `${ctx.svc.config.baseUrl}/media/${name}`;
        size = { w: image.info.width, h: image.info.height };
      }
      const f = fields.data;
      return saveCreative(ctx.svc, campaign, {
        title: f.title ?? null,
        body: f.body ?? null,
        landing_url: f.landing_url,
        cta_text: f.cta_text ?? null,
        image_url: imageUrl,
        image_width: size?.w ?? null,
        image_height: size?.h ?? null,
        video_url: f.video_url ?? null,
        orientation: f.orientation ?? defaultOrientation(campaign.format),
      });
    }),

  list: advertiser
    .input(z.object({ campaign_id: idSchema }))
    .output(z.object({ creatives: z.array(creativeSchema) }))
    .query(async ({ ctx, input }) => {
      await loadOwnedCampaign(ctx.svc, ctx.session.userId, input.campaign_id);
      return { creatives: await listCampaignCreatives(ctx.svc, input.campaign_id) };
    }),

  get: advertiser
    .input(z.object({ id: idSchema }))
    .output(creativeSchema)
    .query(async ({ ctx, input }) => {
      const creative = await loadCreative(ctx.svc, input.id);
      if (creative.advertiser_id !== ctx.session.userId) throw forbidden();
      return creative;
    }),
});
