import { z } from 'zod';
import { trimUrl } from './fields.ts';

/** AI ad copy: the provider and what its tokens cost. */
export const aiSlice = z
  .object({
    /**
     * OpenAI-compatible chat-completions API base, e.g. `https://api.openai.com/v1`. Unset: ad copy comes from the
     * offline template generator at no cost.
     */
    AI_BASE_URL: z.url({ protocol: /^https?$/ }).optional(),
    /** Bearer key for AI_BASE_URL. */
    AI_API_KEY: z.string().min(1).optional(),
    /** Chat model asked for ad copy. */
    AI_MODEL: z.string().min(1).default('gpt-4o-mini'),
    /**
     * `json_schema` (structured outputs), or `json_object` for compatible services without structured outputs; the
     * answer is validated either way.
     */
    AI_RESPONSE_FORMAT: z.enum(['json_schema', 'json_object']).default('json_schema'),
    /** Time limit per provider call; a timeout is answered 502. */
    AI_TIMEOUT_MS: z.coerce.number().int().min(100).max(300_000).default(30_000),
    /** `max_tokens` of each call; also bounds the cost reserved for it. */
    AI_MAX_OUTPUT_TOKENS: z.coerce.number().int().min(256).max(32_000).default(2_000),
    /** Price of 1000 input tokens in micro-cents (1/100 000 USD; 250 = $2.50 per million tokens). */
    AI_PRICE_INPUT_MICROCENTS_PER_1K: z.coerce.number().int().min(0).max(100_000_000).default(250),
    /** Price of 1000 output tokens in micro-cents. */
    AI_PRICE_OUTPUT_MICROCENTS_PER_1K: z.coerce.number().int().min(0).max(100_000_000).default(1_000),
  })
  .transform((e) => ({
    baseUrl: e.AI_BASE_URL === undefined ? undefined : trimUrl(e.AI_BASE_URL),
    apiKey: e.AI_API_KEY,
    model: e.AI_MODEL,
    responseFormat: e.AI_RESPONSE_FORMAT,
    timeoutMs: e.AI_TIMEOUT_MS,
    maxOutputTokens: e.AI_MAX_OUTPUT_TOKENS,
    priceInputMicroCentsPer1k: e.AI_PRICE_INPUT_MICROCENTS_PER_1K,
    priceOutputMicroCentsPer1k: e.AI_PRICE_OUTPUT_MICROCENTS_PER_1K,
  }));
export type AiConfig = z.output<typeof aiSlice>;
