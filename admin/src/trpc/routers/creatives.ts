import {
  creativeCreatedSchema,
  creativeFieldsSchema,
  creativeSchema,
  creativeUpdateInputSchema,
  idSchema,
} from '@adnet/schemas/api';
import type { Creative, CreativeFields } from '@adnet/schemas/api';
import { z } from 'zod';
import { checkCreative, defaultOrientation } from '../../domain/creative-rules.ts';
import { creativeMove } from '../../domain/creative-states.ts';
import type { CreativeAction } from '../../domain/creative-states.ts';
import type { ImageInput } from '../../domain/creative-rules.ts';
import { probeImage } from '../../domain/image-probe.ts';
import { AppError, fieldErrors, forbidden, notFound, zodFieldErrors } from '../../errors.ts';
import { campaignApprovedIndex, loadOwnedCampaign } from '../../repos/campaigns.ts';
import { listCampaignCreatives, loadCreative, saveCreative } from '../../repos/creatives.ts';
import { CFG_MODERATION_QUEUE } from '../../storage/keys.ts';
import type { IndexOp } from '../../storage/config-store.ts';
import type { AuthedContext } from '../init.ts';
import { roleProcedure, router } from '../init.ts';

const advertiser = roleProcedure('advertiser');
const TEXT_FIELDS = [
  'title',
  'body',
  'landing_url',
  'video_url',
  'duration_s',
  'cta_text',
  'orientation',
  'weight',
] as const;

/** Pause, resume or archive one of the advertiser's creatives (domain/creative-states.ts). */
async function move(ctx: AuthedContext, id: number, action: CreativeAction): Promise<Creative> {
  const updated = await ctx.svc.configStore.update<Creative>(
    'creative',
    id,
    (c) => {
      if (c.advertiser_id !== ctx.session.userId) throw forbidden();
      const m = creativeMove(c.status, action);
      if (!m.ok) throw new AppError('illegal_transition', m.reason);
      if (!m.changed) return { value: c };
      // The approved index counts creatives that can serve (campaign activation reads it).
      const ops: IndexOp[] = [
        { cmd: m.next === 'approved' ? 'SADD' : 'SREM', key: campaignApprovedIndex(c.campaign_id), member: id },
      ];
      if (m.next === 'archived') ops.push({ cmd: 'ZREM', key: CFG_MODERATION_QUEUE, member: id });
      return { value: { ...c, status: m.next }, ops };
    },
    () => notFound('Creative'),
  );
  ctx.svc.log.info({ event: 'creative.changed', creativeId: id, status: updated.status }, 'creative changed');
  return updated;
}

const CONTENT_FIELDS = ['title', 'body', 'cta_text', 'landing_url', 'video_url', 'duration_s'] as const;

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
      const errors: Record<string, string> = {};
      const text: Record<string, string> = {};
      for (const name of TEXT_FIELDS) {
        const v = form.get(name);
        if (v === null) continue;
        if (typeof v === 'string') text[name] = v;
        else errors[name] = 'must be a text field, not a file';
      }
      const image = await readImage(form.get('image'), ctx.svc.config.server.imageMaxBytes);
      if (image === 'not_a_file') errors.image = 'must be a file upload';
      const fields = creativeFieldsSchema.safeParse(text);
      if (!fields.success) Object.assign(errors, zodFieldErrors(fields.error));
      // Without a campaign the format's rules cannot run, but the fields' own checks are named with it.
      const campaignId = idSchema.safeParse(form.get('campaign_id') ?? undefined);
      if (!campaignId.success) throw fieldErrors({ campaign_id: 'must be a positive integer', ...errors });
      const campaign = await loadOwnedCampaign(ctx.svc, ctx.session.userId, campaignId.data);
      if (campaign.status === 'archived')
        throw new AppError('illegal_transition', 'Cannot add creatives to an archived campaign');
      // Format rules run even when a field failed its own check, so one answer names every problem;
      // the more specific message already recorded for a field wins.
      const candidate = fields.success ? fields.data : (text as unknown as CreativeFields);
      const formatErrors = checkCreative(campaign.format, candidate, image === 'not_a_file' ? { kind: 'none' } : image);
      for (const [k, v] of Object.entries(formatErrors)) errors[k] ??= v;
      if (Object.keys(errors).length > 0 || !fields.success || image === 'not_a_file') throw fieldErrors(errors);

      let imageUrl: string | null = null;
      let size: { w: number; h: number } | null = null;
      if (image.kind === 'ok') {
        const part = form.get('image') as File;
        const name = await ctx.svc.media.save(Buffer.from(await part.arrayBuffer()), image.info.type);
        imageUrl = `${ctx.svc.config.server.adBaseUrl}/media/${name}`;
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
        duration_s: f.duration_s ?? null,
        orientation: f.orientation ?? defaultOrientation(campaign.format),
        weight: f.weight,
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

  pause: advertiser
    .input(z.object({ id: idSchema }))
    .output(creativeSchema)
    .mutation(({ ctx, input }) => move(ctx, input.id, 'pause')),
  resume: advertiser
    .input(z.object({ id: idSchema }))
    .output(creativeSchema)
    .mutation(({ ctx, input }) => move(ctx, input.id, 'resume')),
  archive: advertiser
    .input(z.object({ id: idSchema }))
    .output(creativeSchema)
    .mutation(({ ctx, input }) => move(ctx, input.id, 'archive')),

  update: advertiser
    .input(creativeUpdateInputSchema)
    .output(creativeSchema)
    .mutation(async ({ ctx, input }) => {
      const { id, weight, ...content } = input;
      const current = await loadCreative(ctx.svc, id);
      if (current.advertiser_id !== ctx.session.userId) throw forbidden();
      const changed = CONTENT_FIELDS.filter((f) => content[f] !== undefined);
      // A text sent as null is cleared; one not sent is kept.
      const textOf = (sent: string | null | undefined, kept: string | null) =>
        sent === null ? undefined : (sent ?? kept ?? undefined);
      // The edited creative must still fit its format, judged with the image it keeps.
      const merged: CreativeFields = {
        title: textOf(content.title, current.title),
        body: textOf(content.body, current.body),
        cta_text: textOf(content.cta_text, current.cta_text),
        landing_url: content.landing_url ?? current.landing_url,
        video_url: content.video_url ?? current.video_url ?? undefined,
        duration_s: content.duration_s ?? current.duration_s ?? undefined,
      };
      const image: ImageInput =
        current.image_width !== null && current.image_height !== null
          ? { kind: 'ok', info: { type: 'png', width: current.image_width, height: current.image_height, bytes: 0 } }
          : { kind: 'none' };
      const errors = checkCreative(current.format, merged, image);
      if (Object.keys(errors).length) throw fieldErrors(errors);
      const now = new Date();
      const updated = await ctx.svc.configStore.update<Creative>(
        'creative',
        id,
        (c) => {
          if (c.status === 'archived')
            throw new AppError('illegal_transition', 'An archived creative cannot be edited');
          if (!changed.length) return { value: { ...c, weight: weight ?? c.weight } };
          // New content is moderated again before it serves.
          const ops: IndexOp[] = [
            { cmd: 'SREM', key: campaignApprovedIndex(c.campaign_id), member: id },
            { cmd: 'ZADD', key: CFG_MODERATION_QUEUE, member: id, score: now.getTime() },
          ];
          const value: Creative = {
            ...c,
            title: merged.title ?? null,
            body: merged.body ?? null,
            cta_text: merged.cta_text ?? null,
            landing_url: merged.landing_url,
            video_url: merged.video_url ?? null,
            duration_s: merged.duration_s ?? null,
            weight: weight ?? c.weight,
            status: 'pending_moderation',
            rejection_reason: null,
            moderated_at: null,
          };
          return { value, ops };
        },
        () => notFound('Creative'),
      );
      ctx.svc.log.info(
        { event: 'creative.edited', creativeId: id, fields: changed, status: updated.status },
        'creative edited',
      );
      return updated;
    }),
});
