import { AI_IMAGE_PROMPT_COUNT, AI_VARIANT_COUNT, HOOK_TYPES, IMAGE_STYLES } from '@adnet/schemas/ai';
import type { AiCopy, AiUsage } from '@adnet/schemas/ai';
import type { CampaignFormat } from '@adnet/schemas/api';
import { MICRO_CENTS_PER_USD } from '@adnet/schemas/money';
import { FORMAT_RULES } from './creative-rules.ts';

export interface CopyRequest {
  format: CampaignFormat;
  vertical: string;
  offer: string;
  cta: string;
  geo: string;
  lang: string;
}

export interface CopyLimits {
  titleMax: number;
  bodyMax: number;
}

/** The lengths a creative of the campaign's format accepts, so every variant can be uploaded as is. */
export const copyLimits = (format: CampaignFormat): CopyLimits => ({
  titleMax: FORMAT_RULES[format].titleMax,
  bodyMax: FORMAT_RULES[format].bodyMax,
});

export interface ChatMessage {
  role: 'system' | 'user';
  content: string;
}

export function buildPrompt(req: CopyRequest): ChatMessage[] {
  const { titleMax, bodyMax } = copyLimits(req.format);
  const system = [
    'You write ad copy for a performance advertising network. Answer with JSON only.',
    `Return exactly ${AI_VARIANT_COUNT} "variants" and ${AI_IMAGE_PROMPT_COUNT} "image_prompts".`,
    `Each variant: "title" (at most ${titleMax} characters), "body" (at most ${bodyMax} characters),`,
    `"hook_type" (one of: ${HOOK_TYPES.join(', ')}); use a different hook for each variant where possible.`,
    `Each image prompt: "prompt" (an English description for an image model, at most 1000 characters),`,
    `"style" (one of: ${IMAGE_STYLES.join(', ')}).`,
    'Titles and bodies are written in the requested language; image prompts are in English.',
    'Do not promise guaranteed results, and do not invent prices or facts that the offer does not state.',
  ].join('\n');
  const user = JSON.stringify({
    offer: req.offer,
    call_to_action: req.cta,
    country: req.geo,
    language: req.lang,
    ad_format: req.format,
    vertical: req.vertical,
  });
  return [
    { role: 'system', content: system },
    { role: 'user', content: user },
  ];
}

/** Problems that make an otherwise well-formed answer unusable for this campaign; empty when fine. */
export function copyProblems(copy: AiCopy, limits: CopyLimits): string[] {
  const problems: string[] = [];
  copy.variants.forEach((v, i) => {
    if (v.title.length > limits.titleMax)
      problems.push(`variants.${i}.title is longer than ${limits.titleMax} characters`);
    if (v.body.length > limits.bodyMax) problems.push(`variants.${i}.body is longer than ${limits.bodyMax} characters`);
  });
  return problems;
}

// Rough but safe-side token estimate: about 4 characters per token in English,
// fewer in other scripts, so count one token per 3 UTF-8 bytes plus per-message overhead.
export function estimateInputTokens(messages: readonly ChatMessage[]): number {
  return messages.reduce((n, m) => n + Math.ceil(Buffer.byteLength(m.content, 'utf8') / 3) + 8, 8);
}

export interface TokenPrices {
  inputMicroCentsPer1k: number;
  outputMicroCentsPer1k: number;
}

const MICRO_CENTS_PER_CENT = MICRO_CENTS_PER_USD / 100;

/** Integer micro-cents times 1000 summed first, then rounded up once to whole cents. */
export function tokenCostCents(usage: AiUsage, prices: TokenPrices): number {
  const scaled = usage.input_tokens * prices.inputMicroCentsPer1k + usage.output_tokens * prices.outputMicroCentsPer1k;
  return Math.ceil(scaled / (1000 * MICRO_CENTS_PER_CENT));
}
