import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, useTestApp } from '@adnet/test-support/admin';
import { eventually, startEngine } from '@adnet/test-support/engine';
import type { TestEngine } from '@adnet/test-support/engine';
import { MockDsp, bidFor } from '@adnet/test-support/mock-dsp';
import { World } from '@adnet/test-support/world';

// The supply chain we send demand partners (docs/demand.md, supply chain): our node in `source.ext.schain` for a
// 2.5 partner and in `source.schain` for a 2.6 one, each request sent with the partner's version header.
const fx = useTestApp({ DEMAND_ALLOW_LOOPBACK: '1' });
const SELLER_DOMAIN = 'ads.adnet.example';
let engine: TestEngine;
let world: World;
let zone = '';
let publisherId = 0;
const dsps: Record<'v25' | 'v26', MockDsp> = {
  v25: new MockDsp((r) => ({ body: bidFor(dsps.v25, r, { price: 1, adm: '<div>25</div>' }) })),
  v26: new MockDsp((r) => ({ body: bidFor(dsps.v26, r, { price: 2, adm: '<div>26</div>' }) })),
};
const ids: Record<string, number> = {};

beforeAll(async () => {
  await Promise.all(Object.values(dsps).map((d) => d.start()));
  world = await World.create(fx.app);
  const site = await world.site();
  publisherId = site.publisher.id;
  zone = (await world.zone({ format: 'banner', banner_width: 300, banner_height: 250, floor_cpm_usd: 0.5 }, site))
    .subid;
  for (const [name, d] of Object.entries(dsps)) {
    const r = await call<{ id: number; openrtb_version: string }>(fx.app, 'POST', '/api/admin/demand-partners', {
      token: world.admin.token,
      json: {
        name,
        endpoint: `${d.base}/bid`,
        formats: ['banner'],
        qps_limit: 10_000,
        ...(name === 'v26' ? { openrtb_version: '2.6' } : {}),
      },
    });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    expect(r.body.openrtb_version).toBe(name === 'v26' ? '2.6' : '2.5');
    ids[name] = r.body.id;
  }
  engine = await startEngine(fx.redis.url, {
    DEMAND_ALLOW_LOOPBACK: '1',
    PUBLIC_BASE_URL: `https://${SELLER_DOMAIN}`,
  });
  await eventually(() => engine.engine.mirror.index?.demandPartners.length === 2);
});
afterAll(async () => {
  await engine?.stop();
  await Promise.all(Object.values(dsps).map((d) => d.stop()));
});

describe('demand partners by OpenRTB version', () => {
  it('refuses a version other than 2.5 or 2.6, naming the field; a PATCH changes it', async () => {
    const bad = await call<{ errors: Record<string, string> }>(fx.app, 'POST', '/api/admin/demand-partners', {
      token: world.admin.token,
      json: { name: 'x', endpoint: 'https://dsp.example/bid', formats: ['banner'], openrtb_version: '3.0' },
    });
    expect(bad.status).toBe(400);
    expect(Object.keys(bad.body.errors)).toEqual(['openrtb_version']);
    const made = await call<{ id: number }>(fx.app, 'POST', '/api/admin/demand-partners', {
      token: world.admin.token,
      json: { name: 'y', endpoint: 'https://dsp.example/bid', formats: ['push'] },
    });
    const patched = await call<{ openrtb_version: string }>(
      fx.app,
      'PATCH',
      `/api/admin/demand-partners/${made.body.id}`,
      { token: world.admin.token, json: { openrtb_version: '2.6' } },
    );
    expect(patched.body.openrtb_version).toBe('2.6');
    await call(fx.app, 'POST', `/api/admin/demand-partners/${made.body.id}/disable`, { token: world.admin.token });
  });

  it('sends each partner our supply chain node at its version’s place, with its version header', async () => {
    const res = await fetch(`${engine.base}/imp?z=${zone}&fp=fingerprint-123&s=e30&u=visitor-id-0000000001`, {
      headers: {
        'user-agent':
          'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/125.0 Safari/537.36',
        'accept-language': 'en-US,en;q=0.9',
        'x-country': 'US',
      },
    });
    // What is tested is what the partners were sent; on a loaded machine their answers may miss the auction's
    // deadline and leave the zone unfilled (204), which says nothing about the request.
    expect([200, 204]).toContain(res.status);
    await eventually(() => dsps.v25.bids.length > 0 && dsps.v26.bids.length > 0);
    const node = { asi: SELLER_DOMAIN, sid: String(publisherId), hp: 1 };
    const chain = { complete: 1, ver: '1.0', nodes: [node] };

    const sent25 = dsps.v25.bids[0];
    expect(sent25?.headers['x-openrtb-version']).toBe('2.5');
    const body25 = JSON.parse(sent25?.body ?? '{}') as { id: string; source: Record<string, unknown> };
    expect(body25.source).toEqual({ tid: body25.id, ext: { schain: chain } });

    const sent26 = dsps.v26.bids[0];
    expect(sent26?.headers['x-openrtb-version']).toBe('2.6');
    const body26 = JSON.parse(sent26?.body ?? '{}') as { id: string; source: Record<string, unknown> };
    expect(body26.source).toEqual({ tid: body26.id, schain: chain });
    // One auction: the same request otherwise.
    expect(body26.id).toBe(body25.id);
  });
});
