import { AI_IMAGE_PROMPT_COUNT, HOOK_TYPES, IMAGE_STYLES } from '@adnet/schemas/ai';
import type { AiCopy } from '@adnet/schemas/ai';
import { copyLimits } from './ai-copy.ts';
import type { CopyRequest } from './ai-copy.ts';
import { phrasesFor } from './ai-template-phrases.ts';

/** Cuts at a word boundary when one is near, and marks the cut with an ellipsis. */
export function fit(text: string, max: number): string {
  if (text.length <= max) return text;
  const room = text.slice(0, max - 1);
  const space = room.lastIndexOf(' ');
  return `${(space > max / 2 ? room.slice(0, space) : room).trimEnd()}…`;
}

/**
 * The offline generator: the same shape as a provider's answer, built from the
 * request alone, in the requested language where the phrase table has it.
 */
export function templateCopy(req: CopyRequest): AiCopy {
  const { titleMax, bodyMax } = copyLimits(req.format);
  const offer = req.offer.replace(/\s+/g, ' ').trim();
  const cta = req.cta.replace(/\s+/g, ' ').trim();
  // One pass over the template, so an offer that itself contains "{c}" is left as written.
  const fill = (template: string) => template.replace(/\{([oc])\}/g, (_m, k: string) => (k === 'o' ? offer : cta));
  const { phrases } = phrasesFor(req.lang);
  const variants = HOOK_TYPES.map((hook) => {
    const [title, body] = phrases[hook];
    return { title: fit(fill(title), titleMax), body: fit(fill(body), bodyMax), hook_type: hook };
  });
  const scenes = [
    `A happy person in ${req.geo} using ${offer}, natural light, close-up`,
    `${offer} presented on a clean background, product hero shot`,
    `Bold poster for "${offer}" with space for the text "${cta}"`,
    `Lifestyle scene in ${req.geo} showing the result of ${offer}, evening light`,
  ];
  const image_prompts = scenes.slice(0, AI_IMAGE_PROMPT_COUNT).map((prompt, i) => ({
    prompt: fit(prompt, 1000),
    style: IMAGE_STYLES[i % IMAGE_STYLES.length] ?? 'photoreal',
  }));
  return { variants, image_prompts };
}
