import { AI_IMAGE_PROMPT_COUNT, HOOK_TYPES, IMAGE_STYLES } from '@adnet/schemas/ai';
import type { AiCopy } from '@adnet/schemas/ai';
import { copyLimits } from './ai-copy.ts';
import type { CopyRequest } from './ai-copy.ts';

type Hook = (typeof HOOK_TYPES)[number];

// One opener per hook. The offline generator has no translator: it writes the
// offer and call to action as given, so text in the requested language comes
// from the advertiser's own words (documented in api.md).
const OPENERS: Record<Hook, (offer: string, cta: string) => { title: string; body: string }> = {
  fear: (o, c) => ({ title: `Don't miss out: ${o}`, body: `Others already have ${o}. ${c} before it is gone.` }),
  curiosity: (o, c) => ({ title: `The secret behind ${o}`, body: `Find out why everyone talks about ${o}. ${c}.` }),
  urgency: (o, c) => ({ title: `Today only: ${o}`, body: `${o} is waiting, but not for long. ${c} now.` }),
  benefit: (o, c) => ({ title: `Get more with ${o}`, body: `${o}: made to make your day easier. ${c}.` }),
  social_proof: (o, c) => ({ title: `Thousands chose ${o}`, body: `Join the people who picked ${o}. ${c}.` }),
  scarcity: (o, c) => ({ title: `Limited: ${o}`, body: `Only a few left of ${o}. ${c} while you can.` }),
  question: (o, c) => ({ title: `Ready for ${o}?`, body: `What would ${o} change for you? ${c} and see.` }),
  story: (o, c) => ({ title: `How ${o} changed it all`, body: `It started with one click on ${o}. ${c}.` }),
};

/** Cuts at a word boundary when one is near, and marks the cut with an ellipsis. */
export function fit(text: string, max: number): string {
  if (text.length <= max) return text;
  const room = text.slice(0, max - 1);
  const space = room.lastIndexOf(' ');
  return `${(space > max / 2 ? room.slice(0, space) : room).trimEnd()}…`;
}

/** The offline generator: the same shape as a provider's answer, built from the request alone. */
export function templateCopy(req: CopyRequest): AiCopy {
  const { titleMax, bodyMax } = copyLimits(req.format);
  const offer = req.offer.replace(/\s+/g, ' ').trim();
  const cta = req.cta.replace(/\s+/g, ' ').trim();
  const variants = HOOK_TYPES.map((hook) => {
    const t = OPENERS[hook](offer, cta);
    return { title: fit(t.title, titleMax), body: fit(t.body, bodyMax), hook_type: hook };
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
