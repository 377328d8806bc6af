import { TRPCClientError } from '@trpc/client';
import { describe, expect, it } from 'vitest';
import type { AppRouter } from '../src/trpc/router.ts';
import { account, startApp, uniqueEmail, useTestApp } from '@adnet/test-support/admin';
import { makePng } from '@adnet/test-support/images';
import { trpcClient } from './support/trpc-client.ts';
import { TRPC_MAX_BATCH } from '@adnet/schemas/trpc-limits';

const fx = useTestApp();

async function caught(p: Promise<unknown>): Promise<TRPCClientError<AppRouter>> {
  try {
    await p;
  } catch (e) {
    if (e instanceof TRPCClientError) return e as TRPCClientError<AppRouter>;
    throw e;
  }
  throw new Error('expected an error');
}

describe('typed tRPC client', () => {
  it('runs the advertiser flow end to end: sign up, campaign, upload, moderation, activation', async () => {
    const email = uniqueEmail('trpc');
    const anon = trpcClient(fx.app.base);
    const reg = await anon.auth.register.mutate({ email, password: 'typed-pass', role: 'advertiser' });
    expect(reg).toEqual({ ok: true });
    const { token } = await anon.auth.token.mutate({ email, password: 'typed-pass' });
    const adv = trpcClient(fx.app.base, token);

    const campaign = await adv.adv.campaigns.create.mutate({
      name: 'Typed',
      vertical: 'dating',
      format: 'push',
      bid_type: 'cpc',
      bid_usd: 0.05,
      daily_budget_usd: 10,
    });
    expect(campaign).toMatchObject({
      status: 'draft',
      bid_micro_cents: 5_000,
      daily_budget_cents: 1_000,
      geo_include: [],
    });

    const form = new FormData();
    form.set('campaign_id', String(campaign.id));
    form.set('title', 'Hello');
    form.set('body', 'From the typed client');
    form.set('landing_url', 'https://example.com/?c={click_id}');
    form.set('image', new Blob([makePng(192, 192)], { type: 'image/png' }), 'icon.png');
    const creative = await adv.adv.creatives.create.mutate(form);
    expect(creative).toMatchObject({ status: 'pending_moderation', format: 'push', image_width: 192 });

    const admin = trpcClient(fx.app.base, (await account(fx.app, 'admin')).token);
    expect((await admin.admin.moderationQueue.query()).creatives.map((c) => c.id)).toContain(creative.id);
    await admin.admin.approveCreative.mutate({ id: creative.id });
    const active = await adv.adv.campaigns.activate.mutate({ id: campaign.id });
    expect(active.status).toBe('active');
    // Batched queries travel in one request.
    const [list, balance] = await Promise.all([adv.adv.campaigns.list.query(), adv.adv.balance.get.query()]);
    expect(list.campaigns).toHaveLength(1);
    expect(balance.balance_cents).toBe(0);
  });

  it('manages deals with full types, the same answers as REST', async () => {
    const admin = trpcClient(fx.app.base, (await account(fx.app, 'admin')).token);
    const partner = await admin.admin.createPartner.mutate({ name: 'Typed exchange', allowed_ips: ['192.0.2.44'] });
    const adv = await account(fx.app, 'advertiser');
    const campaign = await trpcClient(fx.app.base, adv.token).adv.campaigns.create.mutate({
      name: 'Deal buyer',
      vertical: 'dating',
      format: 'banner',
      bid_type: 'cpm',
      bid_usd: 2,
      daily_budget_usd: 10,
    });
    const deal = await admin.admin.createDeal.mutate({
      id: 'TYPED-1',
      floor_usd: 1.25,
      partner_ids: [partner.id],
      campaign_ids: [campaign.id, campaign.id],
    });
    expect(deal).toMatchObject({
      id: 'TYPED-1',
      floor_usd: 1.25,
      partner_ids: [partner.id],
      campaign_ids: [campaign.id],
    });
    expect((await admin.admin.updateDeal.mutate({ id: 'TYPED-1', floor_usd: 2 })).floor_usd).toBe(2);
    expect((await admin.admin.getDeal.query({ id: 'TYPED-1' })).floor_usd).toBe(2);
    expect((await admin.admin.listDeals.query()).deals.map((d) => d.id)).toContain('TYPED-1');
    expect(await admin.admin.deleteDeal.mutate({ id: 'TYPED-1' })).toEqual({ deleted: true });
    expect((await caught(admin.admin.getDeal.query({ id: 'TYPED-1' }))).data?.httpStatus).toBe(404);
  });

  it('carries the same error codes, field maps and HTTP statuses as REST', async () => {
    const a = await account(fx.app, 'advertiser');
    const adv = trpcClient(fx.app.base, a.token);
    const invalid = await caught(
      adv.adv.campaigns.create.mutate({
        name: '',
        vertical: 'x',
        format: 'native',
        bid_type: 'cpm',
        bid_usd: 1,
        daily_budget_usd: 5,
      } as never),
    );
    expect(invalid.data?.httpStatus).toBe(400);
    expect(invalid.data?.fields).toEqual({
      name: 'must not be empty',
      vertical: expect.stringContaining('must be one of'),
    });

    const missing = await caught(adv.adv.campaigns.get.query({ id: 424242 }));
    expect(missing.data).toMatchObject({ httpStatus: 404, appCode: 'not_found' });

    const noAuth = await caught(trpcClient(fx.app.base).adv.campaigns.list.query());
    expect(noAuth.data).toMatchObject({ httpStatus: 401, appCode: 'unauthorized' });

    const pub = trpcClient(fx.app.base, (await account(fx.app, 'publisher')).token);
    expect((await caught(pub.adv.campaigns.list.query())).data).toMatchObject({
      httpStatus: 403,
      appCode: 'forbidden',
    });

    const form = new FormData();
    form.set('campaign_id', '424242');
    expect((await caught(adv.adv.creatives.create.mutate(form))).data?.httpStatus).toBe(404);
  });

  it("sets a push zone's prompt and reads its worker URL, typed", async () => {
    const pub = trpcClient(fx.app.base, (await account(fx.app, 'publisher')).token);
    const site = await pub.pub.sites.create.mutate({
      domain: 'typed-push.example',
      category: 'news',
      language: 'en',
      traffic_estimate_daily: 100,
    });
    const zone = await pub.pub.zones.create.mutate({
      site_id: site.id,
      name: 'Push',
      format: 'push',
      push_prompt: { on: 'delay', delay_s: 30 },
    });
    expect(zone.push_prompt).toEqual({ on: 'delay', delay_s: 30 });
    expect(zone.push_worker_url).toMatch(/\/push\/sw\.js$/);
    const moved = await pub.pub.zones.update.mutate({ id: zone.id, push_prompt: { on: 'click' } });
    expect(moved.push_prompt).toEqual({ on: 'click' });
    expect(
      (await caught(pub.pub.zones.update.mutate({ id: zone.id, push_prompt: { on: 'delay' } }))).data?.httpStatus,
    ).toBe(400);
  });

  it('answers a rate-limited call with 429 and Retry-After on the tRPC door too', async () => {
    const strict = await startApp(fx.redis.url, { API_RATE_LIMIT_PER_MIN: '2' });
    try {
      const a = await account(strict, 'advertiser');
      const adv = trpcClient(strict.base, a.token);
      await adv.adv.campaigns.list.query();
      await adv.adv.campaigns.list.query();
      const limited = await caught(adv.adv.campaigns.list.query());
      expect(limited.data).toMatchObject({
        httpStatus: 429,
        appCode: 'rate_limited',
        retryAfterSeconds: expect.any(Number),
      });
      const raw = await fetch(`${strict.base}/trpc/adv.campaigns.list`, {
        headers: { authorization: `Bearer ${a.token}` },
      });
      expect(raw.status).toBe(429);
      expect(Number(raw.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    } finally {
      await strict.close();
    }
  });
  it('answers a batch of more than TRPC_MAX_BATCH calls with 400 before running any, and the typed client splits its batches at that size', async () => {
    const calls = (n: number) => Array.from({ length: n }, () => 'auth.me').join(',');
    const input = (n: number) =>
      encodeURIComponent(JSON.stringify(Object.fromEntries(Array.from({ length: n }, (_, i) => [i, {}]))));
    const tooMany = await fetch(
      `${fx.app.base}/trpc/${calls(TRPC_MAX_BATCH + 1)}?batch=1&input=${input(TRPC_MAX_BATCH + 1)}`,
    );
    expect(tooMany.status).toBe(400);
    const atLimit = await fetch(`${fx.app.base}/trpc/${calls(TRPC_MAX_BATCH)}?batch=1&input=${input(TRPC_MAX_BATCH)}`);
    // Each call answers on its own (401: no session), the batch itself is taken.
    expect(atLimit.status).not.toBe(400);
    expect(((await atLimit.json()) as unknown[]).length).toBe(TRPC_MAX_BATCH);
    const { token } = await account(fx.app, 'advertiser');
    const adv = trpcClient(fx.app.base, token);
    const answers = await Promise.all(Array.from({ length: 2 * TRPC_MAX_BATCH + 1 }, () => adv.auth.me.query()));
    expect(answers.every((a) => a.role === 'advertiser')).toBe(true);
  });
});
