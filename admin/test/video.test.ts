import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { VideoPoller } from '../src/video/poller.ts';
import { account, call, startApp, useTestApp, validCampaign } from '@adnet/test-support/admin';
import type { Account, TestApp } from '@adnet/test-support/admin';
import { fakeVideoServer } from './support/fake-providers.ts';
import type { FakeServer } from './support/fake-providers.ts';

let video: FakeServer;
const env: Record<string, string> = {
  VIDEO_API_KEY: 'vk-test',
  VIDEO_COST_CENTS: '150',
  VIDEO_POLL_INTERVAL_MS: '10',
  VIDEO_LEASE_MS: '5000',
  VIDEO_MAX_AGE_MS: '60000',
};
beforeAll(async () => {
  video = await fakeVideoServer();
  env.VIDEO_BASE_URL = video.url;
});
afterAll(async () => video.close());
const fx = useTestApp(env);

// A clock the pollers read, moved by the tests instead of sleeping. Never behind real time: jobs are
// created with the server's clock, and a slow start (a loaded CI machine) must not leave them not yet due.
let clock = Date.now();
const tick = async (app: TestApp = fx.app, aheadMs = 0): Promise<void> => {
  clock = Math.max(clock, Date.now()) + 1_000;
  await new VideoPoller(app.svc, () => clock + aheadMs).tick();
};

const request = {
  avatar_id: 'slow-3',
  voice_id: 'voice-anna',
  script: 'Sleep better tonight with our herbal tea.',
  language: 'en',
  orientation: 'vertical',
};

async function advertiser(
  cents: number,
  app: TestApp = fx.app,
  format = 'floating_video',
): Promise<{ who: Account; campaignId: number }> {
  const who = await account(app, 'advertiser');
  const c = await call<{ id: number }>(app, 'POST', '/api/adv/campaigns', {
    token: who.token,
    json: { ...validCampaign, format },
  });
  if (cents > 0) await app.svc.ledger.credit(who.id, cents, 'test top-up');
  return { who, campaignId: c.body.id };
}
const start = (token: string, json: unknown, app: TestApp = fx.app) =>
  call<Record<string, unknown>>(app, 'POST', '/api/adv/video/generate', { token, json });
const status = (token: string, jobId: unknown, app: TestApp = fx.app) =>
  call<Record<string, unknown>>(app, 'GET', `/api/adv/video/status/${String(jobId)}`, { token });
const balance = (id: number) => fx.app.svc.ledger.balance(id);

describe('HTTP video adapter', () => {
  it('charges at start, stays processing while the provider works, then completes', async () => {
    const { who, campaignId } = await advertiser(1_000);
    const before = video.requests.length;
    const r = await start(who.token, { ...request, campaign_id: campaignId });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ ok: true, job_id: expect.any(Number), status: 'processing', cost_cents: 150 });
    expect(await balance(who.id)).toBe(850);
    const created = video.requests[before];
    expect(created?.headers.authorization).toBe('Bearer vk-test');
    expect(created?.body).toMatchObject({
      avatar_id: 'slow-3',
      voice_id: 'voice-anna',
      language: 'en',
      orientation: 'vertical',
      reference: String(r.body.job_id),
    });

    await tick();
    await tick();
    expect((await status(who.token, r.body.job_id)).body).toMatchObject({
      status: 'processing',
      video_url: null,
      duration_sec: null,
      reason: null,
    });
    await tick();
    const done = await status(who.token, r.body.job_id);
    expect(done.status).toBe(200);
    expect(done.body).toMatchObject({
      status: 'completed',
      video_url: 'https://cdn.example.com/vid_1.mp4',
      duration_sec: 15,
      campaign_id: campaignId,
      orientation: 'vertical',
    });
    expect(await balance(who.id)).toBe(850);
  });

  it('refunds a failed job exactly once, with a ledger entry', async () => {
    const { who, campaignId } = await advertiser(1_000);
    const r = await start(who.token, { ...request, avatar_id: 'fails', campaign_id: campaignId });
    expect(await balance(who.id)).toBe(850);
    await tick();
    expect((await status(who.token, r.body.job_id)).body).toMatchObject({
      status: 'failed',
      reason: 'avatar not found',
      video_url: null,
    });
    expect(await balance(who.id)).toBe(1_000);
    await tick();
    expect(await balance(who.id)).toBe(1_000);
    const [refund, charge] = await fx.app.svc.ledger.entries(who.id, 3);
    expect(charge).toMatchObject({ kind: 'debit', amount_cents: -150 });
    expect(refund).toMatchObject({ kind: 'credit', amount_cents: 150, balance_after_cents: 1_000 });
    expect(refund?.reason).toMatch(/refund.*avatar not found/);
  });

  it('fails and refunds a job the provider cannot be asked about past the maximum age', async () => {
    const { who, campaignId } = await advertiser(1_000);
    const r = await start(who.token, { ...request, avatar_id: 'down', campaign_id: campaignId });
    await tick();
    expect((await status(who.token, r.body.job_id)).body).toMatchObject({ status: 'processing' });
    await tick(fx.app, 60_000);
    expect((await status(who.token, r.body.job_id)).body).toMatchObject({
      status: 'failed',
      reason: 'the video provider could not be reached in time',
    });
    expect(await balance(who.id)).toBe(1_000);
  });

  it('answers 502 and refunds when the provider refuses to start the job', async () => {
    const { who, campaignId } = await advertiser(1_000);
    const r = await start(who.token, { ...request, avatar_id: 'refuse', campaign_id: campaignId });
    expect(r.status).toBe(502);
    expect(r.body).toMatchObject({ code: 'bad_gateway', error: expect.stringMatching(/HTTP 500/) });
    expect(await balance(who.id)).toBe(1_000);
  });

  it('answers 402 without starting a job when the balance is below the cost', async () => {
    const { who, campaignId } = await advertiser(149);
    const before = video.requests.length;
    const r = await start(who.token, { ...request, campaign_id: campaignId });
    expect(r.status).toBe(402);
    expect(r.body).toMatchObject({ code: 'payment_required' });
    expect(video.requests.length).toBe(before);
    expect(await balance(who.id)).toBe(149);
  });

  it('allows 1 request per 5 s per user, with Retry-After', async () => {
    const { who, campaignId } = await advertiser(1_000);
    expect((await start(who.token, { ...request, campaign_id: campaignId })).status).toBe(200);
    const r = await start(who.token, { ...request, campaign_id: campaignId });
    expect(r.status).toBe(429);
    expect(Number(r.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(Number(r.headers.get('retry-after'))).toBeLessThanOrEqual(5);
    expect(await balance(who.id)).toBe(850);
  });
});

describe('checks', () => {
  it('names every invalid field', async () => {
    const { who, campaignId } = await advertiser(1_000);
    const r = await start(who.token, {
      campaign_id: campaignId,
      avatar_id: 'a b',
      voice_id: '',
      language: 'english',
      orientation: 'diagonal',
    });
    expect(r.status).toBe(400);
    expect(Object.keys(r.body.errors as object).sort()).toEqual([
      'avatar_id',
      'language',
      'orientation',
      'script',
      'voice_id',
    ]);
    expect((r.body.errors as Record<string, string>).orientation).toBe('must be one of: vertical, horizontal, square');
    expect(await balance(who.id)).toBe(1_000);
  });

  it('keeps jobs to their advertiser: 403 for others, 404 for none', async () => {
    const owner = await advertiser(1_000);
    const stranger = await advertiser(1_000);
    const r = await start(owner.who.token, { ...request, campaign_id: owner.campaignId });
    expect((await status(stranger.who.token, r.body.job_id)).status).toBe(403);
    expect((await status(owner.who.token, 99_999_999)).status).toBe(404);
    expect((await start(stranger.who.token, { ...request, campaign_id: owner.campaignId })).status).toBe(403);
    expect((await start(stranger.who.token, { ...request, campaign_id: 99_999_999 })).status).toBe(404);
    expect(await balance(stranger.who.id)).toBe(1_000);
  });
});

describe('jobs survive restarts', () => {
  it('a new admin instance on the same Redis finishes the job', async () => {
    const { who, campaignId } = await advertiser(1_000);
    const r = await start(who.token, { ...request, avatar_id: 'slow-1', campaign_id: campaignId });
    const second = await startApp(fx.redis.url, env);
    try {
      await tick(second);
      expect((await status(who.token, r.body.job_id, second)).body).toMatchObject({ status: 'completed' });
    } finally {
      await second.close();
    }
  });

  it('leases a due job to one poller at a time until the lease runs out', async () => {
    const { who, campaignId } = await advertiser(1_000);
    const r = await start(who.token, { ...request, avatar_id: 'slow-9', campaign_id: campaignId });
    const id = String(r.body.job_id);
    const at = Date.now() + 1_000;
    expect(await fx.app.svc.videoJobs.claimDue(at, 5_000, 1_000)).toContain(id);
    expect(await fx.app.svc.videoJobs.claimDue(at, 5_000, 1_000)).not.toContain(id);
    expect(await fx.app.svc.videoJobs.claimDue(at + 5_001, 5_000, 1_000)).toContain(id);
  });
});

describe('job store', () => {
  it('moves a job out of processing once, and a finished job is never due again', async () => {
    const { who, campaignId } = await advertiser(1_000);
    const r = await start(who.token, { ...request, avatar_id: 'slow-9', campaign_id: campaignId });
    const id = Number(r.body.job_id);
    const jobs = fx.app.svc.videoJobs;
    expect(await jobs.finish(id, 'failed', { reason: 'first' }, new Date())).toBe(true);
    expect(await jobs.finish(id, 'completed', { videoUrl: 'https://x/y.mp4', durationSec: 3 }, new Date())).toBe(false);
    await jobs.reschedule(id, 0);
    expect(await jobs.claimDue(Date.now() + 100_000, 1, 1_000)).not.toContain(String(id));
    expect((await status(who.token, id)).body).toMatchObject({ status: 'failed', reason: 'first', video_url: null });
  });

  it('drops a due entry whose job is gone', async () => {
    await fx.app.svc.redis.zadd('{video}:due', 0, '99999999');
    await tick();
    expect(await fx.app.svc.redis.zscore('{video}:due', '99999999')).toBeNull();
  });
});

describe('attach to a creative', () => {
  it('adds a completed video as a creative of a video campaign, through the creative checks', async () => {
    const { who, campaignId } = await advertiser(1_000);
    const native = await call<{ id: number }>(fx.app, 'POST', '/api/adv/campaigns', {
      token: who.token,
      json: validCampaign,
    });
    const r = await start(who.token, { ...request, avatar_id: 'slow-2', campaign_id: campaignId });
    const attach = (json: unknown) =>
      call<Record<string, unknown>>(fx.app, 'POST', `/api/adv/video/${String(r.body.job_id)}/attach`, {
        token: who.token,
        json,
      });
    const body = { campaign_id: campaignId, landing_url: 'https://example.com/?c={click_id}', title: 'Sleep better' };

    expect((await attach(body)).status).toBe(409);
    await tick();
    await tick();
    const created = await attach(body);
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      campaign_id: campaignId,
      format: 'floating_video',
      video_url: expect.stringMatching(/^https:\/\/cdn\.example\.com\//),
      orientation: 'vertical',
      title: 'Sleep better',
      status: 'pending_moderation',
      image_url: null,
    });
    // The creative's length is the provider's: what the VAST <Duration> and OpenRTB maxduration read.
    const job = await status(who.token, r.body.job_id);
    expect(job.body.duration_sec).toBeGreaterThan(0);
    expect(created.body.duration_s).toBe(job.body.duration_sec);
    expect((await attach({ ...body, campaign_id: native.body.id })).body).toEqual({
      errors: { campaign_id: 'must be a video or floating_video campaign' },
    });
    expect((await attach({ ...body, title: 'x'.repeat(61), landing_url: 'ftp://x' })).body.errors).toHaveProperty(
      'landing_url',
    );
    const stranger = await advertiser(0);
    const foreign = await call(fx.app, 'POST', `/api/adv/video/${String(r.body.job_id)}/attach`, {
      token: stranger.who.token,
      json: { ...body, campaign_id: stranger.campaignId },
    });
    expect(foreign.status).toBe(403);
  });
});

describe('local provider', () => {
  let local: TestApp;
  beforeAll(async () => {
    local = await startApp(fx.redis.url, {
      VIDEO_LOCAL_DELAY_MS: '0',
      VIDEO_COST_CENTS: '100',
      VIDEO_POLL_INTERVAL_MS: '20',
    });
  });
  afterAll(async () => local.close());

  it('completes with a sample MP4 served by the product', async () => {
    const { who, campaignId } = await advertiser(500, local);
    const r = await start(
      who.token,
      { ...request, script: Array(30).fill('word').join(' '), campaign_id: campaignId, orientation: 'square' },
      local,
    );
    expect(r.body).toMatchObject({ ok: true, status: 'processing', cost_cents: 100 });
    await tick(local);
    const done = await status(who.token, r.body.job_id, local);
    expect(done.body).toMatchObject({
      status: 'completed',
      duration_sec: 12,
      video_url: `${local.base}/media/sample/avatar-square-12s.mp4`,
    });
    const file = await fetch(String(done.body.video_url));
    expect(file.status).toBe(200);
    expect(file.headers.get('content-type')).toBe('video/mp4');
    expect(Buffer.from(await file.arrayBuffer()).toString('latin1', 4, 8)).toBe('ftyp');
    expect((await fetch(`${local.base}/media/sample/avatar-square-0s.mp4`)).status).toBe(404);
  });

  it('runs in the background once started, and stops cleanly', async () => {
    const { who, campaignId } = await advertiser(500, local);
    const r = await start(who.token, { ...request, campaign_id: campaignId }, local);
    const poller = new VideoPoller(local.svc);
    poller.start();
    try {
      await expect
        .poll(async () => (await status(who.token, r.body.job_id, local)).body.status, { timeout: 5_000, interval: 20 })
        .toBe('completed');
    } finally {
      await poller.stop();
    }
  });
});
