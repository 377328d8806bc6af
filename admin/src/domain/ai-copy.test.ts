import { aiCopySchema, HOOK_TYPES } from '@adnet/schemas/ai';
import { CAMPAIGN_FORMATS } from '@adnet/schemas/api';
import { describe, expect, it } from 'vitest';
import { buildPrompt, copyLimits, copyProblems, estimateInputTokens, tokenCostCents } from './ai-copy.ts';
import { fit, templateCopy } from './ai-template.ts';
import { phrasesFor, TEMPLATE_PHRASES } from './ai-template-phrases.ts';
import { FORMAT_RULES } from './creative-rules.ts';

const req = {
  format: 'push' as const,
  vertical: 'nutra',
  offer: 'Herbal tea for better sleep',
  cta: 'Order now',
  geo: 'DE',
  lang: 'de',
};

describe('token cost', () => {
  const prices = { inputMicroCentsPer1k: 250, outputMicroCentsPer1k: 1_000 };
  it('sums in integer micro-cents and rounds up once to whole cents', () => {
    // 1000 in x 250 + 1000 out x 1000 = 1250 micro-cents = 1.25 cents -> 2
    expect(tokenCostCents({ input_tokens: 1000, output_tokens: 1000 }, prices)).toBe(2);
    expect(tokenCostCents({ input_tokens: 4000, output_tokens: 0 }, prices)).toBe(1);
    expect(tokenCostCents({ input_tokens: 4001, output_tokens: 0 }, prices)).toBe(2);
    expect(tokenCostCents({ input_tokens: 1, output_tokens: 0 }, prices)).toBe(1);
    expect(tokenCostCents({ input_tokens: 0, output_tokens: 0 }, prices)).toBe(0);
    expect(
      tokenCostCents({ input_tokens: 10, output_tokens: 10 }, { inputMicroCentsPer1k: 0, outputMicroCentsPer1k: 0 }),
    ).toBe(0);
  });
});

describe('prompt', () => {
  it("states the format's length limits, every hook type and the language", () => {
    const [system, user] = buildPrompt(req);
    expect(system?.content).toContain(`at most ${FORMAT_RULES.push.titleMax} characters`);
    expect(system?.content).toContain(`at most ${FORMAT_RULES.push.bodyMax} characters`);
    for (const h of HOOK_TYPES) expect(system?.content).toContain(h);
    expect(JSON.parse(user?.content ?? '{}')).toMatchObject({
      offer: req.offer,
      language: 'de',
      country: 'DE',
      ad_format: 'push',
    });
  });

  it('estimates more tokens for longer input', () => {
    const short = estimateInputTokens(buildPrompt(req));
    const long = estimateInputTokens(buildPrompt({ ...req, offer: 'x'.repeat(500) }));
    expect(long - short).toBeGreaterThanOrEqual(150);
  });
});

describe('template generator', () => {
  // A pop's ad is its landing page: the API refuses to write copy for it (trpc/routers/ai.ts).
  const WITH_COPY = CAMPAIGN_FORMATS.filter((f) => f !== 'popunder' && f !== 'direct_link');
  it.each(WITH_COPY)('gives 8 variants and 4 prompts within the %s limits', (format) => {
    const copy = templateCopy({ ...req, format, offer: 'An extraordinarily long offer text '.repeat(8) });
    expect(aiCopySchema.safeParse(copy).success).toBe(true);
    expect(copyProblems(copy, copyLimits(format))).toEqual([]);
    expect(copy.variants.map((v) => v.hook_type)).toEqual([...HOOK_TYPES]);
    expect(copy.image_prompts.map((p) => p.style)).toContain('photoreal');
  });

  it('uses the offer and call to action as written', () => {
    const copy = templateCopy(req);
    expect(copy.variants.some((v) => v.title.includes(req.offer))).toBe(true);
    expect(copy.variants.every((v) => v.body.includes(req.cta))).toBe(true);
  });

  it('writes in the requested language where it has phrases, else English', () => {
    expect(templateCopy(req).variants[0]?.title).toBe(`Nicht verpassen: ${req.offer}`);
    expect(templateCopy({ ...req, lang: 'fr' }).variants[0]?.title).toBe(`À ne pas manquer : ${req.offer}`);
    expect(templateCopy({ ...req, lang: 'ja' }).variants[0]?.title).toBe(`Don't miss out: ${req.offer}`);
    expect(phrasesFor('ja').lang).toBe('en');
  });

  it('quotes the offer in every phrase and leaves braces in the offer alone', () => {
    for (const phrases of Object.values(TEMPLATE_PHRASES)) {
      for (const [title, body] of Object.values(phrases)) expect(`${title} ${body}`).toContain('{o}');
    }
    expect(templateCopy({ ...req, lang: 'en', offer: 'Deal {c}' }).variants[0]?.title).toBe("Don't miss out: Deal {c}");
  });

  it('cuts at a word boundary with an ellipsis', () => {
    expect(fit('short', 10)).toBe('short');
    expect(fit('one two three four', 10)).toBe('one two…');
    expect(fit('abcdefghijklmnop', 10)).toBe('abcdefghi…');
  });
});

describe('copy problems', () => {
  it('names each too-long title and body', () => {
    const copy = templateCopy(req);
    copy.variants[3] = { title: 'x'.repeat(51), body: 'y'.repeat(121), hook_type: 'fear' };
    expect(copyProblems(copy, copyLimits('push'))).toEqual([
      'variants.3.title is longer than 50 characters',
      'variants.3.body is longer than 120 characters',
    ]);
  });
});
