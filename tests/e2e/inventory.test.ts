import type { StoredSite } from '@adnet/schemas/publisher';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { account, call, useTestApp } from '@adnet/test-support/admin';
import type { Account } from '@adnet/test-support/admin';
import { eventually, postBid, startEngine } from '@adnet/test-support/engine';
import type { TestEngine } from '@adnet/test-support/engine';
import { World, bannerRequest } from '@adnet/test-support/world';

const fx = useTestApp();
let engine: TestEngine;
let world: World;
let pub: Account;

beforeAll(async () => {
  world = await World.create(fx.app);
  await world.partner();
  await world.campaign(await world.advertiser(100_000));
  pub = await account(fx.app, 'publisher');
  engine = await startEngine(fx.redis.url);
});
afterAll(async () => {
  await engine.stop();
});

/** Verification itself is tested in admin/test/publisher.test.ts; here the site is moved to review directly. */
async function verified(siteId: number): Promise<void> {
  await fx.app.svc.configStore.update<StoredSite>(
    'site',
    siteId,
    (s) => ({ value: { ...s, status: 'pending_review' } }),
    () => new Error('no site'),
  );
}

describe('our own sites and zones in bid requests', () => {
  it('a zone serves only while active on an approved site', async () => {
    const site = await call<{ id: number }>(fx.app, 'POST', '/api/pub/sites', {
      token: pub.token,
      json: { domain: 'news-zone.example', category: 'news', language: 'en', traffic_estimate_daily: 1000 },
    });
    const zone = await call<{ id: number; subid: string }>(fx.app, 'POST', '/api/pub/zones', {
      token: pub.token,
      json: { site_id: site.body.id, name: 'Top', format: 'banner', banner_width: 300, banner_height: 250 },
    });
    const req = bannerRequest({}, { tagid: zone.body.subid });
    await eventually(() => engine.engine.mirror.index?.zones.has(zone.body.subid) ?? false);
    expect((await postBid(engine.base, req)).status).toBe(204);

    await verified(site.body.id);
    await call(fx.app, 'POST', `/api/admin/sites/${site.body.id}/approve`, { token: world.admin.token });
    await eventually(async () => (await postBid(engine.base, req)).status === 200);

    await call(fx.app, 'POST', `/api/pub/zones/${zone.body.id}/pause`, { token: pub.token });
    await eventually(async () => (await postBid(engine.base, req)).status === 204);
    await call(fx.app, 'POST', `/api/pub/zones/${zone.body.id}/resume`, { token: pub.token });
    await eventually(async () => (await postBid(engine.base, req)).status === 200);
    // An unknown tagid is somebody else's inventory: served as usual.
    expect((await postBid(engine.base, bannerRequest({}, { tagid: 'not-ours' }))).status).toBe(200);
  });

  it('a request naming one of our sites by site.id needs that site approved', async () => {
    const site = await call<{ id: number }>(fx.app, 'POST', '/api/pub/sites', {
      token: pub.token,
      json: { domain: 'blog-site.example', category: 'news', language: 'en', traffic_estimate_daily: 1000 },
    });
    await eventually(() => engine.engine.mirror.index?.sites.has(site.body.id) ?? false);
    const req = bannerRequest({ site: { id: String(site.body.id), domain: 'blog-site.example' } });
    expect((await postBid(engine.base, req)).status).toBe(204);
    await verified(site.body.id);
    await call(fx.app, 'POST', `/api/admin/sites/${site.body.id}/approve`, { token: world.admin.token });
    await eventually(async () => (await postBid(engine.base, req)).status === 200);
  });
});
