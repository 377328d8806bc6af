import { HOOK_TYPES, IMAGE_STYLES } from '@adnet/schemas/ai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { account, call, startApp, useTestApp, validCampaign } from '@adnet/test-support/admin';
import type { Account, TestApp } from '@adnet/test-support/admin';
import { fakeChatServer } from './support/fake-providers.ts';
import type { ChatReply, FakeServer } from './support/fake-providers.ts';

let chat: FakeServer & { queue: ChatReply[] };

// The fake must exist before the app reads AI_BASE_URL, so its port is fixed up front.
const env: Record<string, string> = {
  AI_API_KEY: 'sk-test',
  AI_MODEL: 'fake-model',
  AI_TIMEOUT_MS: '400',
  AI_MAX_OUTPUT_TOKENS: '1000',
  // 10 cents per 1k input tokens, 50 cents per 1k output tokens (micro-cents: 1/100 000 USD).
  AI_PRICE_INPUT_MICROCENTS_PER_1K: '10000',
  AI_PRICE_OUTPUT_MICROCENTS_PER_1K: '50000',
};
beforeAll(async () => {
  chat = await fakeChatServer();
  env.AI_BASE_URL = `${chat.url}/`;
});
afterAll(async () => chat.close());
const fx = useTestApp(env);

const input = { offer: 'Herbal tea for deep sleep', cta: 'Order now', geo: 'DE', lang: 'de' };

function goodCopy(titleLen = 20): string {
  return JSON.stringify({
    variants: HOOK_TYPES.map((h) => ({
      title: `T${'i'.repeat(titleLen - 1)}`,
      body: `Schlaf besser mit Kräutertee (${h})`,
      hook_type: h,
    })),
    image_prompts: IMAGE_STYLES.slice(0, 4).map((s) => ({ prompt: `A cup of herbal tea at night, ${s}`, style: s })),
  });
}
const good = (usage = { prompt_tokens: 200, completion_tokens: 600 }): ChatReply => ({
  kind: 'content',
  content: goodCopy(),
  usage,
});

/** A new advertiser (own rate-limit slot) with one campaign and `cents` of balance. */
async function advertiser(cents: number, format = 'push'): Promise<{ who: Account; campaignId: number }> {
  const who = await account(fx.app, 'advertiser');
  const c = await call<{ id: number }>(fx.app, 'POST', '/api/adv/campaigns', {
    token: who.token,
    json: { ...validCampaign, format },
  });
  if (cents > 0) await fx.app.svc.ledger.credit(who.id, cents, 'test top-up');
  return { who, campaignId: c.body.id };
}
const generate = (app: TestApp, token: string, campaignId: number, json: unknown = input) =>
  call<Record<string, unknown>>(app, 'POST', `/api/adv/campaigns/${campaignId}/ai-generate`, { token, json });
const balance = (id: number) => fx.app.svc.ledger.balance(id);

describe('with an OpenAI-compatible provider', () => {
  it('returns 8 variants and 4 image prompts, charges the token cost as ledger entries', async () => {
    const { who, campaignId } = await advertiser(1_000);
    chat.queue.push(good());
    const before = chat.requests.length;
    const r = await generate(fx.app, who.token, campaignId);
    expect(r.status).toBe(200);
    // 200 x 10 + 600 x 50 = 32 000 micro-cents x 1000 tokens -> 32 cents
    expect(r.body).toMatchObject({
      provider: 'openai',
      usage: { input_tokens: 200, output_tokens: 600 },
      cost_cents: 32,
    });
    expect(r.body.variants).toHaveLength(8);
    expect(r.body.image_prompts).toHaveLength(4);
    expect(await balance(who.id)).toBe(1_000 - 32);

    const sent = chat.requests[before];
    expect(sent?.headers.authorization).toBe('Bearer sk-test');
    expect(sent?.body).toMatchObject({
      model: 'fake-model',
      max_tokens: 1000,
      response_format: { type: 'json_schema' },
    });
    const entries = await fx.app.svc.ledger.entries(who.id, 10);
    const reservation = entries.find((e) => e.reason.endsWith(': reservation'));
    const unused = entries.find((e) => e.reason.includes('unused'));
    expect(reservation?.kind).toBe('debit');
    expect(unused?.kind).toBe('credit');
    expect(-(reservation?.amount_cents ?? 0) - (unused?.amount_cents ?? 0)).toBe(32);
  });

  it('retries a malformed answer once and charges both calls', async () => {
    const { who, campaignId } = await advertiser(1_000);
    chat.queue.push(
      { kind: 'content', content: 'Sure! Here is your copy:', usage: { prompt_tokens: 200, completion_tokens: 600 } },
      good(),
    );
    const r = await generate(fx.app, who.token, campaignId);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ usage: { input_tokens: 400, output_tokens: 1200 }, cost_cents: 64 });
    expect(await balance(who.id)).toBe(1_000 - 64);
  });

  it('treats titles too long for the format as malformed; twice is a 502 and nothing is charged', async () => {
    const { who, campaignId } = await advertiser(1_000);
    const tooLong: ChatReply = {
      kind: 'content',
      content: goodCopy(51),
      usage: { prompt_tokens: 200, completion_tokens: 600 },
    };
    chat.queue.push(tooLong, tooLong);
    const r = await generate(fx.app, who.token, campaignId);
    expect(r.status).toBe(502);
    expect(r.body).toMatchObject({ code: 'bad_gateway' });
    expect(String(r.body.error)).toMatch(/unusable content twice.*title is longer than 50/);
    expect(await balance(who.id)).toBe(1_000);
  });

  it.each([
    ['a timeout', { kind: 'hang' }, /did not answer within 400 ms/],
    ['HTTP 500', { kind: 'status', status: 500 }, /HTTP 500/],
  ] satisfies [string, ChatReply, RegExp][])(
    'answers 502 on %s and refunds the reservation',
    async (_name, reply, message) => {
      const { who, campaignId } = await advertiser(1_000);
      chat.queue.push(reply);
      const before = chat.requests.length;
      const r = await generate(fx.app, who.token, campaignId);
      expect(r.status).toBe(502);
      expect(String(r.body.error)).toMatch(message);
      expect(chat.requests.length - before).toBe(1);
      expect(await balance(who.id)).toBe(1_000);
    },
  );

  it('answers 402 before calling the provider when the balance cannot cover the maximum cost', async () => {
    const { who, campaignId } = await advertiser(50);
    const before = chat.requests.length;
    const r = await generate(fx.app, who.token, campaignId);
    expect(r.status).toBe(402);
    expect(r.body).toMatchObject({ code: 'payment_required' });
    expect(chat.requests.length).toBe(before);
    expect(await balance(who.id)).toBe(50);
    expect(await fx.app.svc.ledger.entries(who.id, 10)).toHaveLength(1);
  });

  it('allows 1 call per 30 s per advertiser, with Retry-After', async () => {
    const { who, campaignId } = await advertiser(1_000);
    chat.queue.push(good());
    expect((await generate(fx.app, who.token, campaignId)).status).toBe(200);
    const r = await generate(fx.app, who.token, campaignId);
    expect(r.status).toBe(429);
    const retry = Number(r.headers.get('retry-after'));
    expect(retry).toBeGreaterThanOrEqual(25);
    expect(retry).toBeLessThanOrEqual(30);
    const other = await advertiser(1_000);
    chat.queue.push(good());
    expect((await generate(fx.app, other.who.token, other.campaignId)).status).toBe(200);
  });
});

describe('json_object mode', () => {
  it('asks for a JSON object when structured outputs are turned off, and still validates the answer', async () => {
    const app = await startApp(fx.redis.url, { ...env, AI_RESPONSE_FORMAT: 'json_object' });
    try {
      const who = await account(app, 'advertiser');
      const c = await call<{ id: number }>(app, 'POST', '/api/adv/campaigns', {
        token: who.token,
        json: { ...validCampaign, format: 'push' },
      });
      await app.svc.ledger.credit(who.id, 1_000, 'test top-up');
      chat.queue.push({ kind: 'content', content: '{"variants": []}' }, good());
      const before = chat.requests.length;
      const r = await generate(app, who.token, c.body.id);
      expect(r.status).toBe(200);
      expect(chat.requests.length - before).toBe(2);
      expect((chat.requests[before]?.body as { response_format: unknown }).response_format).toEqual({
        type: 'json_object',
      });
    } finally {
      await app.close();
    }
  });
});

describe('checks', () => {
  it('names every invalid field', async () => {
    const { who, campaignId } = await advertiser(0);
    const r = await generate(fx.app, who.token, campaignId, {
      offer: '',
      cta: 'x'.repeat(61),
      geo: 'de',
      lang: 'german',
    });
    expect(r.status).toBe(400);
    expect(Object.keys(r.body.errors as object).sort()).toEqual(['cta', 'geo', 'lang', 'offer']);
    expect((r.body.errors as Record<string, string>).geo).toMatch(/uppercase ISO 3166-1/);
    const unknown = await generate(fx.app, who.token, campaignId, { ...input, geo: 'XX' });
    expect(unknown.body.errors).toHaveProperty('geo');
    expect((await generate(fx.app, who.token, campaignId, {})).body.errors).toMatchObject({
      offer: 'is required',
      cta: 'is required',
      geo: 'is required',
      lang: 'is required',
    });
  });

  it("answers 403 for another advertiser's campaign, 404 for none, 403 for publishers", async () => {
    const owner = await advertiser(1_000);
    const stranger = await advertiser(1_000);
    expect((await generate(fx.app, stranger.who.token, owner.campaignId)).status).toBe(403);
    expect((await generate(fx.app, stranger.who.token, 99_999_999)).status).toBe(404);
    const pub = await account(fx.app, 'publisher');
    expect((await generate(fx.app, pub.token, owner.campaignId)).status).toBe(403);
    expect(await balance(stranger.who.id)).toBe(1_000);
  });
});

describe('OpenAPI', () => {
  it('documents the body and the 402 and 502 answers', async () => {
    type Op = {
      responses: Record<string, unknown>;
      requestBody: { content: Record<string, { schema: { properties: object } }> };
    };
    const doc = (await (await fetch(`${fx.app.base}/openapi.json`)).json()) as { paths: Record<string, { post: Op }> };
    const op = doc.paths['/api/adv/campaigns/{id}/ai-generate']?.post;
    expect(Object.keys(op?.requestBody.content['application/json']?.schema.properties ?? {}).sort()).toEqual([
      'cta',
      'geo',
      'lang',
      'offer',
    ]);
    expect(Object.keys(op?.responses ?? {})).toEqual(expect.arrayContaining(['200', '400', '402', '429', '502']));
    expect(Object.keys(doc.paths['/api/adv/video/generate']?.post.responses ?? {})).toEqual(
      expect.arrayContaining(['402', '502']),
    );
  });
});

describe('without a provider', () => {
  let offline: TestApp;
  beforeAll(async () => {
    offline = await startApp(fx.redis.url);
  });
  afterAll(async () => offline.close());

  it('uses the template generator: same shape, provider "template", no charge, even at zero balance', async () => {
    const who = await account(offline, 'advertiser');
    const c = await call<{ id: number }>(offline, 'POST', '/api/adv/campaigns', {
      token: who.token,
      json: { ...validCampaign, format: 'push' },
    });
    const r = await generate(offline, who.token, c.body.id);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ provider: 'template', cost_cents: 0, usage: { input_tokens: 0, output_tokens: 0 } });
    const variants = r.body.variants as { title: string; body: string; hook_type: string }[];
    expect(variants).toHaveLength(8);
    expect(variants.every((v) => v.title.length <= 50 && v.body.length <= 120)).toBe(true);
    expect(variants.map((v) => v.hook_type)).toEqual(expect.arrayContaining(['fear', 'curiosity']));
    expect((r.body.image_prompts as { style: string }[]).map((p) => p.style)).toContain('photoreal');
    expect(await offline.svc.ledger.entries(who.id, 10)).toEqual([]);
  });
});
