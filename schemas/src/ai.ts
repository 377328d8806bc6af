import { z } from 'zod';
import { creativeFieldsSchema, idSchema, oneOf, ORIENTATIONS } from './api.ts';
import { COUNTRY_CODES, LANGUAGE_CODES } from './geo.ts';

// ---------------------------------------------------------------- AI ad copy

/** The spec shows fear and curiosity; the rest complete one hook per variant. */
export const HOOK_TYPES = [
  'fear',
  'curiosity',
  'urgency',
  'benefit',
  'social_proof',
  'scarcity',
  'question',
  'story',
] as const;
/** The spec shows photoreal; the rest are the styles image models commonly take. */
export const IMAGE_STYLES = ['photoreal', 'illustration', '3d_render', 'flat', 'cinematic'] as const;
/** The spec's result sizes. */
export const AI_VARIANT_COUNT = 8;
export const AI_IMAGE_PROMPT_COUNT = 4;
export const AI_PROVIDERS = ['openai', 'template'] as const;

const text = (max: number) =>
  z.string().trim().min(1, 'must not be empty').max(max, `must be at most ${max} characters`);
const languageCode = z.string().refine((c) => LANGUAGE_CODES.has(c), 'must be a lowercase ISO 639-1 language code');

export const aiGenerateInputSchema = z.object({
  id: idSchema,
  offer: text(500),
  cta: text(60),
  // Uppercase as the spec writes it; campaigns store the same codes lowercase.
  geo: z
    .string()
    .refine(
      (c) => /^[A-Z]{2}$/.test(c) && COUNTRY_CODES.has(c.toLowerCase()),
      'must be an uppercase ISO 3166-1 alpha-2 country code',
    ),
  lang: languageCode,
});
export type AiGenerateInput = z.infer<typeof aiGenerateInputSchema>;

export const aiVariantSchema = z.object({
  title: z.string().trim().min(1),
  body: z.string().trim().min(1),
  hook_type: z.enum(HOOK_TYPES),
});
export const aiImagePromptSchema = z.object({
  prompt: z.string().trim().min(1).max(1000),
  style: z.enum(IMAGE_STYLES),
});
/** What the model must answer; format lengths are checked by admin's ai-copy rules. */
export const aiCopySchema = z.object({
  variants: z.array(aiVariantSchema).length(AI_VARIANT_COUNT),
  image_prompts: z.array(aiImagePromptSchema).length(AI_IMAGE_PROMPT_COUNT),
});
export type AiCopy = z.infer<typeof aiCopySchema>;
export type AiVariant = z.infer<typeof aiVariantSchema>;

export const aiUsageSchema = z.object({
  input_tokens: z.number().int().min(0),
  output_tokens: z.number().int().min(0),
});
export type AiUsage = z.infer<typeof aiUsageSchema>;

export const aiGenerateResponseSchema = aiCopySchema.extend({
  usage: aiUsageSchema,
  provider: z.enum(AI_PROVIDERS),
  cost_cents: z.number().int().min(0),
});
export type AiGenerateResponse = z.infer<typeof aiGenerateResponseSchema>;

// ---------------------------------------------------------------- avatar video

export const VIDEO_JOB_STATUSES = ['processing', 'completed', 'failed'] as const;
export type VideoJobStatus = (typeof VIDEO_JOB_STATUSES)[number];
export type Orientation = (typeof ORIENTATIONS)[number];

const providerRef = z
  .string()
  .trim()
  .min(1, 'must not be empty')
  .max(100, 'must be at most 100 characters')
  .regex(/^[A-Za-z0-9._:-]+$/, 'may only contain letters, digits, ".", "_", ":" and "-"');

export const videoGenerateInputSchema = z.object({
  campaign_id: idSchema,
  avatar_id: providerRef,
  voice_id: providerRef,
  script: text(5000),
  language: languageCode,
  orientation: oneOf(ORIENTATIONS),
});
export type VideoGenerateInput = z.infer<typeof videoGenerateInputSchema>;

export const videoStartResponseSchema = z.object({
  ok: z.literal(true),
  job_id: z.number().int(),
  status: z.literal('processing'),
  cost_cents: z.number().int(),
});

export const videoJobSchema = z.object({
  job_id: z.number().int(),
  campaign_id: z.number().int(),
  status: z.enum(VIDEO_JOB_STATUSES),
  video_url: z.string().nullable(),
  duration_sec: z.number().int().nullable(),
  reason: z.string().nullable(),
  orientation: z.enum(ORIENTATIONS),
  cost_cents: z.number().int(),
  created_at: z.string(),
  updated_at: z.string(),
});
export type VideoJobView = z.infer<typeof videoJobSchema>;

export const videoAttachInputSchema = creativeFieldsSchema
  .pick({ title: true, body: true, landing_url: true, cta_text: true })
  .extend({ job_id: idSchema, campaign_id: idSchema });
export type VideoAttachInput = z.infer<typeof videoAttachInputSchema>;
