import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PUSH_QPS_KEEP } from '@adnet/engine/push-sender';
import { call, useTestApp } from '@adnet/test-support/admin';
import { eventually, startEngine } from '@adnet/test-support/engine';
import type { TestEngine } from '@adnet/test-support/engine';
import { MockDsp } from '@adnet/test-support/mock-dsp';
import { PushServiceStub } from '@adnet/test-support/push-service';
import { World } from '@adnet/test-support/world';

// A push pass and a demand partner's QPS: the pass waits for the partner's allowance instead of sending the
// notifications it cannot offer without it, and leaves the share page views need. The partner answers no bid
// (204), so our own campaign sends every notification and the count of what the partner saw is the point.
const QPS = 4;
const SUBSCRIBERS = Array.from({ length: 8 }, (_, i) => `/paced-${i + 1}`);
const BROWSER = {
  'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/125.0 Safari/537.36',
};

const fx = useTestApp({ DEMAND_ALLOW_LOOPBACK: '1' });
const asked: { at: number; push: boolean }[] = [];
const dsp = new MockDsp((r) => {
  asked.push({ at: performance.now(), push: JSON.stringify(r).includes('"native"') });
  return { status: 204 };
});
let stub: PushServiceStub;
let engine: TestEngine;
let world: World;
let pushZone = '';
let bannerZone = '';
let partnerId = 0;

beforeAll(async () => {
  stub = await PushServiceStub.start();
  await dsp.start();
  world = await World.create(fx.app);
  const adv = await world.advertiser(100_000);
  await world.campaign(adv, { format: 'push', bid_type: 'cpm', bid_usd: 40 });
  const site = await world.site();
  pushZone = (await world.zone({ format: 'push' }, site)).subid;
  bannerZone = (await world.zone({ format: 'banner', banner_width: 300, banner_height: 250 }, site)).subid;
  const r = await call<{ id: number }>(fx.app, 'POST', '/api/admin/demand-partners', {
    token: world.admin.token,
    json: {
      name: 'Slow DSP',
      endpoint: `${dsp.base}/bid`,
      formats: ['push', 'banner'],
      qps_limit: QPS,
      timeout_ms: 100,
    },
  });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  partnerId = r.body.id;
  engine = await startEngine(fx.redis.url, {
    DEMAND_ALLOW_LOOPBACK: '1',
    PUSH_SERVICE_HOSTS: '127.0.0.1',
    PUSH_CA_FILE: stub.caFile,
    PUSH_SEND_INTERVAL_MS: '3600000',
    // Two at a time: each notification waits at most a second for the partner, so more workers than the partner
    // has requests in a second would send some without it by design.
    PUSH_SEND_CONCURRENCY: '2',
  });
  await eventually(
    () =>
      engine.engine.mirror.index?.demandPartners.length === 1 &&
      engine.engine.mirror.index.zones.get(pushZone)?.serving === true,
  );
  await new Promise((r) => setTimeout(r, 300)); // first budget slices
});
afterAll(async () => {
  await engine?.stop();
  stub?.close();
  await dsp.stop();
});

const counters = async () => {
  const list = await call<{ demand_partners: { id: number; health: { counters: Record<string, number> } }[] }>(
    fx.app,
    'GET',
    '/api/admin/demand-partners',
    {
      token: world.admin.token,
    },
  );
  return list.body.demand_partners.find((p) => p.id === partnerId)?.health.counters ?? {};
};

const subscribeAll = async (paths: readonly string[]) => {
  for (const p of paths) {
    const res = await fetch(`${engine.base}/push/subscribe`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain', 'x-country': 'US' },
      body: JSON.stringify({ zone: pushZone, subscription: stub.subscription(p) }),
    });
    expect(res.status).toBe(201);
  }
};

describe('a push pass within a demand partner’s QPS', () => {
  it('offers every notification to the partner, at its rate, and leaves page views their share', async () => {
    await subscribeAll(SUBSCRIBERS);
    await engine.engine.pushSender.runOnce();
    expect(stub.received.map((r) => r.path).sort()).toEqual([...SUBSCRIBERS].sort());
    // Eight notifications against 4 requests a second, half of a full bucket kept: every one offered, over at
    // least a second (a pass that did not wait would have offered 4 at once and sent 4 without the partner).
    const push = asked.filter((a) => a.push);
    expect(push).toHaveLength(SUBSCRIBERS.length);
    expect((push.at(-1)?.at ?? 0) - (push[0]?.at ?? 0)).toBeGreaterThanOrEqual(
      ((SUBSCRIBERS.length - QPS * (1 - PUSH_QPS_KEEP)) / QPS) * 1000 - 50,
    );

    // Right after the pass a page view still finds the partner's kept share.
    const res = await fetch(`${engine.base}/imp?z=${bannerZone}&fp=fingerprint-123&s=e30&u=visitor-id-0000000001`, {
      headers: BROWSER,
    });
    expect(res.status).toBeLessThan(500);
    expect(asked.filter((a) => !a.push)).toHaveLength(1);
    await eventually(async () => (await counters()).requests === SUBSCRIBERS.length + 1);
    expect((await counters()).skipped_qps ?? 0).toBe(0);
  });

  it('reads the index as it is at each notification: a partner disabled during a pass is asked no more', async () => {
    const MID = Array.from({ length: 8 }, (_, i) => `/mid-${i + 1}`);
    await subscribeAll(MID);
    stub.received.length = 0;
    asked.length = 0;
    const pass = engine.engine.pushSender.runOnce();
    // The pass takes about 1.5 s at the partner's pace; it is disabled after its third request.
    await eventually(() => asked.length >= 3);
    const off = await call(fx.app, 'POST', `/api/admin/demand-partners/${partnerId}/disable`, {
      token: world.admin.token,
    });
    expect(off.status).toBe(200);
    await eventually(() => engine.engine.mirror.index?.demandPartners.length === 0);
    const askedWhenGone = asked.length;
    await pass;
    expect(stub.received.map((r) => r.path).sort()).toEqual([...MID].sort());
    // One request may have been on its way when the index changed.
    expect(asked.length).toBeLessThanOrEqual(askedWhenGone + 1);
    expect(asked.length).toBeLessThan(MID.length);
    // On again for the next test.
    expect(
      (await call(fx.app, 'POST', `/api/admin/demand-partners/${partnerId}/enable`, { token: world.admin.token }))
        .status,
    ).toBe(200);
    await eventually(() => engine.engine.mirror.index?.demandPartners.length === 1);
  });

  it('a stopping sender hands back the notifications it has not begun, and another engine sends them once', async () => {
    const LATER = Array.from({ length: 16 }, (_, i) => `/later-${i + 1}`);
    await subscribeAll(LATER);
    stub.received.length = 0;
    // 16 at the partner's pace take about 4 s; the engine stops in the first.
    const pass = engine.engine.pushSender.runOnce();
    await new Promise((r) => setTimeout(r, 300));
    await engine.engine.pushSender.stop();
    await pass;
    const first = stub.received.map((r) => r.path);
    expect(first.length).toBeGreaterThan(0);
    expect(first.length).toBeLessThan(LATER.length);
    const second = await startEngine(fx.redis.url, {
      DEMAND_ALLOW_LOOPBACK: '1',
      PUSH_SERVICE_HOSTS: '127.0.0.1',
      PUSH_CA_FILE: stub.caFile,
      PUSH_SEND_INTERVAL_MS: '3600000',
    });
    try {
      await eventually(() => second.engine.mirror.index?.zones.get(pushZone)?.serving === true);
      await new Promise((r) => setTimeout(r, 300));
      await second.engine.pushSender.runOnce();
    } finally {
      await second.stop();
    }
    // Each subscriber once: what the first engine began it finished, the rest the second sent.
    expect(stub.received.map((r) => r.path).sort()).toEqual([...LATER].sort());
  });
});
