import { beforeAll, describe, expect, it } from 'vitest';
import { account, accounts, call, creativeForm, useTestApp, validCampaign } from '@adnet/test-support/admin';
import type { Account } from '@adnet/test-support/admin';
import { makePng } from '@adnet/test-support/images';

const fx = useTestApp();
let adv: Account;
let other: Account;
let admin: Account;

beforeAll(async () => {
  [adv, other, admin] = await accounts(fx.app, 'advertiser', 'advertiser', 'admin');
  // Funds, so that what the delivery status says is about the campaign.
  await call(fx.app, 'POST', `/api/admin/advertisers/${adv.id}/credit`, {
    token: admin.token,
    json: { amount_cents: 10_000 },
  });
});

const create = (token: string, json: unknown) =>
  call<Record<string, unknown> & { id: number }>(fx.app, 'POST', '/api/adv/campaigns', { token, json });

async function approvedCreative(token: string, campaignId: number): Promise<number> {
  const c = await call<{ id: number }>(fx.app, 'POST', `/api/adv/campaigns/${campaignId}/creatives`, {
    token,
    form: creativeForm(
      { title: 'Hi', landing_url: 'https://example.com/?c={click_id}' },
      { data: makePng(200, 200), name: 'a.png', type: 'image/png' },
    ),
  });
  expect(c.status).toBe(201);
  expect((await call(fx.app, 'POST', `/api/admin/creatives/${c.body.id}/approve`, { token: admin.token })).status).toBe(
    200,
  );
  return c.body.id;
}

describe('create', () => {
  it('201 with the derived integer money fields and status draft', async () => {
    const r = await create(adv.token, { ...validCampaign, bid_usd: 0.29, daily_budget_usd: 19.99 });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({
      id: expect.any(Number),
      advertiser_id: adv.id,
      name: 'Spring promo',
      vertical: 'gambling',
      format: 'native',
      bid_type: 'cpm',
      bid_micro_cents: 29_000,
      daily_budget_cents: 1_999,
      daily_spent_cents: 0,
      daily_spent_nano: 0,
      status: 'draft',
      geo_include: ['us', 'de'],
      languages: ['en'],
      device_types: [],
      os_include: [],
      browser_include: [],
      connection_types: [],
    });
    expect(new Date(r.body.created_at as string).toISOString()).toBe(r.body.created_at);
  });

  it('treats absent targeting as no restriction and removes duplicates', async () => {
    const { geo_include: _g, languages: _l, ...bare } = validCampaign;
    expect((await create(adv.token, bare)).body).toMatchObject({ geo_include: [], languages: [] });
    expect((await create(adv.token, { ...validCampaign, geo_include: ['us', 'us'] })).body.geo_include).toEqual(['us']);
  });

  it.each([
    ['name', '', 'must not be empty'],
    ['name', 'x'.repeat(121), 'must be at most 120 characters'],
    ['name', 42, undefined],
    ['vertical', 'weapons', 'must be one of'],
    ['format', 'popup', 'must be one of'],
    ['bid_type', 'cpa', 'must be one of'],
    ['bid_usd', 0, 'must be at least'],
    ['bid_usd', 1001, 'must be at most 1000'],
    ['bid_usd', 1.000001, 'must have at most 5 decimal places'],
    ['bid_usd', '1.5', 'must be a number'],
    ['daily_budget_usd', 0.5, 'must be at least 1'],
    ['daily_budget_usd', 10.001, 'must have at most 2 decimal places'],
    ['daily_budget_usd', 2_000_000, 'must be at most'],
    ['geo_include', ['US'], 'ISO 3166-1'],
    ['geo_include', ['xx'], 'ISO 3166-1'],
    ['geo_include', 'us', undefined],
    ['languages', ['english'], 'ISO 639-1'],
    ['languages', ['zz'], 'ISO 639-1'],
    ['device_types', ['watch'], 'must be one of'],
    ['os_include', ['bsd'], 'must be one of: android, ios, windows, macos, linux, chromeos, other'],
    ['os_include', 'ios', undefined],
    ['browser_include', ['netscape'], 'must be one of: chrome, safari, firefox, edge, samsung, opera, other'],
    ['connection_types', ['5g'], 'must be one of: ethernet, wifi, cellular_unknown'],
  ])('400 for %s = %j', async (field, value, message) => {
    const r = await create(adv.token, { ...validCampaign, [field]: value });
    expect(r.status).toBe(400);
    const errors = r.body.errors as Record<string, string>;
    const key = Object.keys(errors).find((k) => k === field || k.startsWith(`${field}.`));
    expect(key, JSON.stringify(errors)).toBeDefined();
    if (message) expect(errors[key as string]).toContain(message);
  });

  it('lists every missing required field', async () => {
    const r = await create(adv.token, {});
    expect(r.status).toBe(400);
    expect(Object.keys(r.body.errors as object).sort()).toEqual([
      'bid_type',
      'bid_usd',
      'daily_budget_usd',
      'format',
      'name',
      'vertical',
    ]);
  });

  it('is for advertisers only', async () => {
    const pub = await account(fx.app, 'publisher');
    for (const who of [pub, admin]) {
      const r = await create(who.token, validCampaign);
      expect(r.status).toBe(403);
      expect(r.body.code).toBe('forbidden');
    }
  });
});

describe('read and update', () => {
  it('lists only own campaigns with the spec fields', async () => {
    const mine = await create(adv.token, validCampaign);
    await create(other.token, validCampaign);
    const list = await call<{ campaigns: Record<string, unknown>[] }>(fx.app, 'GET', '/api/adv/campaigns', {
      token: adv.token,
    });
    expect(list.status).toBe(200);
    expect(list.body.campaigns.every((c) => c.advertiser_id === adv.id)).toBe(true);
    const found = list.body.campaigns.find((c) => c.id === mine.body.id);
    for (const f of [
      'id',
      'name',
      'vertical',
      'format',
      'bid_type',
      'bid_micro_cents',
      'status',
      'daily_budget_cents',
      'daily_spent_cents',
      'created_at',
    ]) {
      expect(found).toHaveProperty(f);
    }
  });

  it("404 for a missing campaign, 403 for another advertiser's, 400 for a bad id", async () => {
    const theirs = await create(other.token, validCampaign);
    expect((await call(fx.app, 'GET', '/api/adv/campaigns/999999', { token: adv.token })).status).toBe(404);
    expect((await call(fx.app, 'GET', `/api/adv/campaigns/${theirs.body.id}`, { token: adv.token })).status).toBe(403);
    expect(
      (await call(fx.app, 'PATCH', `/api/adv/campaigns/${theirs.body.id}`, { token: adv.token, json: { name: 'x' } }))
        .status,
    ).toBe(403);
    expect(
      (await call(fx.app, 'POST', `/api/adv/campaigns/${theirs.body.id}/pause`, { token: adv.token })).status,
    ).toBe(403);
    const bad = await call(fx.app, 'GET', '/api/adv/campaigns/abc', { token: adv.token });
    expect(bad.status).toBe(400);
    expect(bad.body.errors).toHaveProperty('id');
  });

  it('updates fields and keeps format fixed', async () => {
    const c = await create(adv.token, validCampaign);
    const r = await call(fx.app, 'PATCH', `/api/adv/campaigns/${c.body.id}`, {
      token: adv.token,
      json: { name: 'Renamed', bid_usd: 2.25, daily_budget_usd: 75.5, geo_include: [] },
    });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      name: 'Renamed',
      bid_micro_cents: 225_000,
      daily_budget_cents: 7_550,
      geo_include: [],
      format: 'native',
    });
    const bad = await call(fx.app, 'PATCH', `/api/adv/campaigns/${c.body.id}`, {
      token: adv.token,
      json: { bid_usd: -1, languages: ['xx'] },
    });
    expect(Object.keys(bad.body.errors as object).sort()).toEqual(['bid_usd', 'languages.0']);
    const get = await call(fx.app, 'GET', `/api/adv/campaigns/${c.body.id}`, { token: adv.token });
    expect(get.body.name).toBe('Renamed');
  });

  it('sets and clears device, OS, browser and connection targeting', async () => {
    const targeting = {
      device_types: ['mobile'],
      os_include: ['ios', 'android', 'ios'],
      browser_include: ['safari'],
      connection_types: ['wifi'],
    };
    const c = await create(adv.token, { ...validCampaign, ...targeting });
    expect(c.body).toMatchObject({ ...targeting, os_include: ['ios', 'android'] });
    const r = await call(fx.app, 'PATCH', `/api/adv/campaigns/${c.body.id}`, {
      token: adv.token,
      json: { os_include: [], connection_types: ['cellular_4g'] },
    });
    expect(r.body).toMatchObject({
      device_types: ['mobile'],
      os_include: [],
      browser_include: ['safari'],
      connection_types: ['cellular_4g'],
    });
    const bad = await call(fx.app, 'PATCH', `/api/adv/campaigns/${c.body.id}`, {
      token: adv.token,
      json: { browser_include: ['lynx'], connection_types: [9] },
    });
    expect(Object.keys(bad.body.errors as object).sort()).toEqual(['browser_include.0', 'connection_types.0']);
  });

  it('reads a campaign stored before OS, browser and connection targeting existed as untargeted by them', async () => {
    const c = await create(adv.token, validCampaign);
    await fx.app.svc.configStore.update<Record<string, unknown>>(
      'campaign',
      c.body.id,
      ({ os_include: _o, browser_include: _b, connection_types: _c, ...older }) => ({ value: older }),
      () => new Error('no campaign'),
    );
    const get = await call(fx.app, 'GET', `/api/adv/campaigns/${c.body.id}`, { token: adv.token });
    expect(get.body).toMatchObject({ os_include: [], browser_include: [], connection_types: [] });
  });

  it("reports today's spend from the engines' counter", async () => {
    const c = await create(adv.token, validCampaign);
    // 12.34 cents and a fraction, in nano-dollars: reported as whole cents.
    await fx.app.svc.redis.hset(`bud:{c:${c.body.id}}:${new Date().toISOString().slice(0, 10)}`, 'spent', 123_456_789);
    expect(
      (await call(fx.app, 'GET', `/api/adv/campaigns/${c.body.id}`, { token: adv.token })).body.daily_spent_cents,
    ).toBe(12);
  });
});

describe('states', () => {
  it('draft -> active needs a creative, approved or waiting; the delivery status says when it serves; then pause, resume, archive', async () => {
    const c = await create(adv.token, validCampaign);
    const early = await call(fx.app, 'POST', `/api/adv/campaigns/${c.body.id}/activate`, { token: adv.token });
    expect(early.status).toBe(409);
    expect(early.body).toEqual({
      error: 'Activation needs a creative (approved or waiting for moderation)',
      code: 'illegal_transition',
    });
    expect((await call(fx.app, 'POST', `/api/adv/campaigns/${c.body.id}/pause`, { token: adv.token })).status).toBe(
      409,
    );

    // Activated while its creative waits for moderation: active, not serving yet, and why.
    const waiting = await call<{ id: number }>(fx.app, 'POST', `/api/adv/campaigns/${c.body.id}/creatives`, {
      token: adv.token,
      form: creativeForm(
        { title: 'Hi', landing_url: 'https://example.com/?c={click_id}' },
        { data: makePng(200, 200), name: 'a.png', type: 'image/png' },
      ),
    });
    const active = await call(fx.app, 'POST', `/api/adv/campaigns/${c.body.id}/activate`, { token: adv.token });
    expect(active.status).toBe(200);
    expect(active.body).toMatchObject({
      status: 'active',
      delivery: { serving: false, reasons: ['no_approved_creative'] },
    });
    expect(
      (await call(fx.app, 'POST', `/api/admin/creatives/${waiting.body.id}/approve`, { token: admin.token })).status,
    ).toBe(200);
    expect((await call(fx.app, 'GET', `/api/adv/campaigns/${c.body.id}`, { token: adv.token })).body.delivery).toEqual({
      serving: true,
      reasons: [],
    });
    // Today's spend at the daily budget: not serving, for that reason.
    await fx.app.svc.redis.hset(
      `bud:{c:${c.body.id}}:${new Date().toISOString().slice(0, 10)}`,
      'spent',
      validCampaign.daily_budget_usd * 1e9,
    );
    expect((await call(fx.app, 'GET', `/api/adv/campaigns/${c.body.id}`, { token: adv.token })).body.delivery).toEqual({
      serving: false,
      reasons: ['daily_budget_spent'],
    });
    await fx.app.svc.redis.del(`bud:{c:${c.body.id}}:${new Date().toISOString().slice(0, 10)}`);

    const steps: [string, number, string][] = [
      ['activate', 200, 'active'],
      ['activate', 200, 'active'],
      ['pause', 200, 'paused'],
      ['pause', 200, 'paused'],
      ['activate', 200, 'active'],
      ['archive', 200, 'archived'],
    ];
    for (const [action, status, state] of steps) {
      const r = await call(fx.app, 'POST', `/api/adv/campaigns/${c.body.id}/${action}`, { token: adv.token });
      expect([action, r.status, r.body.status]).toEqual([action, status, state]);
      expect((r.body.delivery as { reasons: string[] }).reasons.includes(state)).toBe(state !== 'active');
    }
    expect((await call(fx.app, 'POST', `/api/adv/campaigns/${c.body.id}/activate`, { token: adv.token })).status).toBe(
      409,
    );
    expect(
      (await call(fx.app, 'PATCH', `/api/adv/campaigns/${c.body.id}`, { token: adv.token, json: { name: 'x' } }))
        .status,
    ).toBe(409);
  });

  it('an advertiser without funds is told so', async () => {
    const broke = await account(fx.app, 'advertiser');
    const c = await create(broke.token, validCampaign);
    await approvedCreative(broke.token, c.body.id);
    const r = await call(fx.app, 'POST', `/api/adv/campaigns/${c.body.id}/activate`, { token: broke.token });
    expect(r.body).toMatchObject({ status: 'active', delivery: { serving: false, reasons: ['no_funds'] } });
  });

  it("the schedule is part of the delivery status: not started, ended, out of hours (the engine's own rule)", async () => {
    const c = await create(adv.token, validCampaign);
    await approvedCreative(adv.token, c.body.id);
    expect(
      (await call(fx.app, 'POST', `/api/adv/campaigns/${c.body.id}/activate`, { token: adv.token })).body.delivery,
    ).toEqual({
      serving: true,
      reasons: [],
    });
    const patch = async (json: unknown): Promise<unknown> => {
      const r = await call(fx.app, 'PATCH', `/api/adv/campaigns/${c.body.id}`, { token: adv.token, json });
      expect(r.status).toBe(200);
      return (await call(fx.app, 'GET', `/api/adv/campaigns/${c.body.id}`, { token: adv.token })).body.delivery;
    };
    const hour = 3_600_000;
    expect(await patch({ start_at: new Date(Date.now() + 24 * hour).toISOString() })).toEqual({
      serving: false,
      reasons: ['not_started'],
    });
    expect(
      await patch({
        start_at: new Date(Date.now() - 48 * hour).toISOString(),
        end_at: new Date(Date.now() - 24 * hour).toISOString(),
      }),
    ).toEqual({
      serving: false,
      reasons: ['ended'],
    });
    // Every hour of the week but the current UTC one (and its neighbours, so the test cannot straddle an hour).
    const weekday = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'][new Date().getUTCDay()] ?? 'mon';
    const now = new Date().getUTCHours();
    const away = [...Array(24).keys()].filter((h) => Math.abs(h - now) > 1 && Math.abs(h - now) < 23);
    const outOfHours = await patch({ start_at: null, end_at: null, dayparting: { [weekday]: away }, timezone: 'UTC' });
    expect(outOfHours).toEqual({ serving: false, reasons: ['outside_schedule'] });
    expect(await patch({ dayparting: null })).toEqual({ serving: true, reasons: [] });
    // The list carries the same status.
    const list = await call<{ campaigns: { id: number; delivery: unknown }[] }>(fx.app, 'GET', '/api/adv/campaigns', {
      token: adv.token,
    });
    expect(list.body.campaigns.find((x) => x.id === c.body.id)?.delivery).toEqual({ serving: true, reasons: [] });
  });

  it('a rejected creative does not allow activation', async () => {
    const c = await create(adv.token, validCampaign);
    const cr = await call<{ id: number }>(fx.app, 'POST', `/api/adv/campaigns/${c.body.id}/creatives`, {
      token: adv.token,
      form: creativeForm(
        { title: 'Hi', landing_url: 'https://example.com/' },
        { data: makePng(200, 200), name: 'a.png', type: 'image/png' },
      ),
    });
    await call(fx.app, 'POST', `/api/admin/creatives/${cr.body.id}/reject`, {
      token: admin.token,
      json: { reason: 'misleading' },
    });
    expect((await call(fx.app, 'POST', `/api/adv/campaigns/${c.body.id}/activate`, { token: adv.token })).status).toBe(
      409,
    );
  });
});

describe('duplicate', () => {
  it('copies every setting as a draft with its live creatives, approved ones still approved', async () => {
    const src = await create(adv.token, {
      ...validCampaign,
      name: 'x'.repeat(120),
      geo_include: ['de', 'at'],
      frequency_cap: { impressions: 2, period_hours: 12 },
    });
    expect(src.body).toMatchObject({ id: expect.any(Number) });
    const approved = await approvedCreative(adv.token, src.body.id);
    const waiting = await call<{ id: number }>(fx.app, 'POST', `/api/adv/campaigns/${src.body.id}/creatives`, {
      token: adv.token,
      form: creativeForm(
        { title: 'Wait', landing_url: 'https://example.com/?c={click_id}' },
        { data: makePng(200, 200), name: 'b.png', type: 'image/png' },
      ),
    });
    const rejected = await call<{ id: number }>(fx.app, 'POST', `/api/adv/campaigns/${src.body.id}/creatives`, {
      token: adv.token,
      form: creativeForm(
        { title: 'No', landing_url: 'https://example.com/?c={click_id}' },
        { data: makePng(200, 200), name: 'c.png', type: 'image/png' },
      ),
    });
    await call(fx.app, 'POST', `/api/admin/creatives/${rejected.body.id}/reject`, {
      token: admin.token,
      json: { reason: 'Misleading claim' },
    });

    const dup = await call<Record<string, unknown> & { id: number; name: string }>(
      fx.app,
      'POST',
      `/api/adv/campaigns/${src.body.id}/duplicate`,
      {
        token: adv.token,
      },
    );
    expect(dup.status).toBe(201);
    expect(dup.body.id).not.toBe(src.body.id);
    expect(dup.body).toMatchObject({
      status: 'draft',
      geo_include: ['de', 'at'],
      frequency_cap: { impressions: 2, period_hours: 12 },
      daily_spent_cents: 0,
    });
    expect(dup.body.name).toHaveLength(120);
    expect(dup.body.name.endsWith(' (copy)')).toBe(true);
    const list = await call<{ creatives: { id: number; title: string; status: string }[] }>(
      fx.app,
      'GET',
      `/api/adv/campaigns/${dup.body.id}/creatives`,
      {
        token: adv.token,
      },
    );
    const byTitle = Object.fromEntries(list.body.creatives.map((c) => [c.title, c]));
    expect(Object.keys(byTitle).sort()).toEqual(['Hi', 'Wait']);
    expect(byTitle.Hi?.status).toBe('approved');
    expect(byTitle.Hi?.id).not.toBe(approved);
    expect(byTitle.Wait?.status).toBe('pending_moderation');
    expect(byTitle.Wait?.id).not.toBe(waiting.body.id);
    // Activating the copy works at once: its approved creative serves.
    const act = await call<{ delivery: { serving: boolean } }>(
      fx.app,
      'POST',
      `/api/adv/campaigns/${dup.body.id}/activate`,
      { token: adv.token },
    );
    expect(act.status).toBe(200);
    expect(act.body.delivery).toEqual({ serving: true, reasons: [] });
  });

  it("refuses another advertiser's campaign and unknown ids", async () => {
    const src = await create(adv.token, validCampaign);
    expect(
      (await call(fx.app, 'POST', `/api/adv/campaigns/${src.body.id}/duplicate`, { token: other.token })).status,
    ).toBe(403);
    expect((await call(fx.app, 'POST', '/api/adv/campaigns/99999999/duplicate', { token: adv.token })).status).toBe(
      404,
    );
    expect((await call(fx.app, 'POST', '/api/adv/campaigns/abc/duplicate', { token: adv.token })).status).toBe(400);
  });
});

describe('admins list campaigns by name', () => {
  type Summary = { id: number; advertiser_id: number; name: string; status: string; format: string };
  const list = (query: string, token = admin.token) =>
    call<{ campaigns: Summary[] }>(fx.app, 'GET', `/api/admin/campaigns${query}`, { token });

  it("gives one advertiser's campaigns, or every advertiser's, by id", async () => {
    const mine = await create(adv.token, { ...validCampaign, name: 'Picked by name' });
    const theirs = await create(other.token, { ...validCampaign, name: 'Another one', format: 'banner' });
    const one = await list(`?advertiser_id=${other.id}`);
    expect(one.status).toBe(200);
    expect(one.body.campaigns).toContainEqual({
      id: theirs.body.id,
      advertiser_id: other.id,
      name: 'Another one',
      status: 'draft',
      format: 'banner',
    });
    expect(new Set(one.body.campaigns.map((c) => c.advertiser_id))).toEqual(new Set([other.id]));
    const all = await list('');
    expect(all.body.campaigns.map((c) => c.id)).toEqual(expect.arrayContaining([mine.body.id, theirs.body.id]));
    expect(all.body.campaigns.map((c) => c.id)).toEqual([...all.body.campaigns.map((c) => c.id)].sort((a, b) => a - b));
    expect((await list('?advertiser_id=99999999')).body.campaigns).toEqual([]);
  });

  it('refuses a bad advertiser id and other roles', async () => {
    const bad = await call<{ errors: Record<string, string> }>(
      fx.app,
      'GET',
      '/api/admin/campaigns?advertiser_id=abc',
      { token: admin.token },
    );
    expect(bad.status).toBe(400);
    expect(Object.keys(bad.body.errors)).toEqual(['advertiser_id']);
    expect((await list('?advertiser_id=0')).status).toBe(400);
    expect((await list('', adv.token)).status).toBe(403);
  });
});
