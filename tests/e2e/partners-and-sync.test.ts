import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, useTestApp } from '@adnet/test-support/admin';
import type { Account } from '@adnet/test-support/admin';
import { eventually, postBid, startEngine, streamedEvents } from '@adnet/test-support/engine';
import type { TestEngine } from '@adnet/test-support/engine';
import { World, bannerRequest } from '@adnet/test-support/world';

const fx = useTestApp();
let world: World;
let engine: TestEngine;
let adv: Account;

beforeAll(async () => {
  world = await World.create(fx.app);
  adv = await world.advertiser(100_000);
  await world.campaign(adv);
  engine = await startEngine(fx.redis.url);
});
afterAll(async () => {
  await engine.stop();
});

describe('partners', () => {
  it('403 for an address no partner allows; admitted once an admin adds it', async () => {
    const far = await world.partner(['10.0.0.0/8', '2001:db8::/32']);
    await eventually(() => engine.engine.mirror.index?.partners.some((p) => p.partner.id === far) ?? false);
    const denied = await postBid(engine.base, bannerRequest());
    expect(denied.status).toBe(403);
    expect((denied.body as { error: string }).error).toContain('127.0.0.1');
    await call(fx.app, 'PATCH', `/api/admin/partners/${far}`, {
      token: world.admin.token,
      json: { allowed_ips: ['10.0.0.0/8', '127.0.0.0/8'] },
    });
    await eventually(async () => (await postBid(engine.base, bannerRequest())).status === 200);
    await call(fx.app, 'POST', `/api/admin/partners/${far}/disable`, { token: world.admin.token });
    await eventually(async () => (await postBid(engine.base, bannerRequest())).status === 403);
    await call(fx.app, 'POST', `/api/admin/partners/${far}/enable`, { token: world.admin.token });
  });

  it('validates partner input', async () => {
    const bad = await call(fx.app, 'POST', '/api/admin/partners', {
      token: world.admin.token,
      json: { name: '', allowed_ips: ['300.1.1.1', '10.0.0.0/33'], qps_limit: 0, billing_notice: 'lurl' },
    });
    expect(bad.status).toBe(400);
    expect(Object.keys(bad.body.errors as object).sort()).toEqual([
      'allowed_ips.0',
      'allowed_ips.1',
      'billing_notice',
      'name',
      'qps_limit',
    ]);
    const created = await call(fx.app, 'POST', '/api/admin/partners', {
      token: world.admin.token,
      json: { name: 'Default QPS', allowed_ips: ['192.0.2.1'] },
    });
    expect(created.body).toMatchObject({ qps_limit: 100, status: 'active', billing_notice: 'nurl' });
    expect(
      (
        await call(fx.app, 'POST', '/api/admin/partners', {
          token: adv.token,
          json: { name: 'x', allowed_ips: ['192.0.2.1'] },
        })
      ).status,
    ).toBe(403);
    expect(
      (await call(fx.app, 'PATCH', '/api/admin/partners/99999', { token: world.admin.token, json: { qps_limit: 5 } }))
        .status,
    ).toBe(404);
  });

  it('429 with Retry-After over the partner QPS limit', async () => {
    const own = await startEngine(fx.redis.url);
    let others: number[] = [];
    let limited = 0;
    try {
      const id = await world.partner(['127.0.0.1'], 5);
      // Make this partner the only match for 127.0.0.1 on this engine (others are re-enabled below).
      others = (
        await call<{ partners: { id: number; status: string }[] }>(fx.app, 'GET', '/api/admin/partners', {
          token: world.admin.token,
        })
      ).body.partners
        .filter((p) => p.id !== id && p.status === 'active')
        .map((p) => p.id);
      for (const p of others)
        await call(fx.app, 'POST', `/api/admin/partners/${p}/disable`, { token: world.admin.token });
      limited = id;
      await eventually(
        () => own.engine.mirror.index?.partners.length === 1 && own.engine.mirror.index.partners[0]?.partner.id === id,
      );
      const statuses: number[] = [];
      let retry: string | null = null;
      for (let i = 0; i < 8; i++) {
        const r = await postBid(own.base, bannerRequest());
        statuses.push(r.status);
        if (r.status === 429) retry = r.headers.get('retry-after');
      }
      expect(statuses.filter((s) => s === 200)).toHaveLength(5);
      expect(statuses.filter((s) => s === 429)).toHaveLength(3);
      expect(retry).toBe('1');
    } finally {
      await own.stop();
      for (const p of others)
        await call(fx.app, 'POST', `/api/admin/partners/${p}/enable`, { token: world.admin.token });
      if (limited) await call(fx.app, 'POST', `/api/admin/partners/${limited}/disable`, { token: world.admin.token });
    }
  });
});

describe('billing notices (burl)', () => {
  it('a partner that bills by billing notices gets burl: it charges once; the win notice and replays charge nothing', async () => {
    const own = await startEngine(fx.redis.url);
    const others = (
      await call<{ partners: { id: number; status: string }[] }>(fx.app, 'GET', '/api/admin/partners', {
        token: world.admin.token,
      })
    ).body.partners
      .filter((p) => p.status === 'active')
      .map((p) => p.id);
    let id = 0;
    try {
      for (const p of others)
        await call(fx.app, 'POST', `/api/admin/partners/${p}/disable`, { token: world.admin.token });
      const created = await call<{ id: number }>(fx.app, 'POST', '/api/admin/partners', {
        token: world.admin.token,
        json: { name: 'Billing exchange', allowed_ips: ['127.0.0.1'], billing_notice: 'burl' },
      });
      id = created.body.id;
      await eventually(
        () => own.engine.mirror.index?.partners.length === 1 && own.engine.mirror.index.partners[0]?.partner.id === id,
      );
      let bid: { nurl: string; burl?: string; id: string } | undefined;
      await eventually(async () => {
        const r = await postBid(own.base, bannerRequest());
        bid =
          r.status === 200
            ? (r.body as { seatbid: { bid: { nurl: string; burl?: string; id: string }[] }[] }).seatbid[0]?.bid[0]
            : undefined;
        return bid !== undefined;
      });
      expect(bid?.burl).toMatch(/\/openrtb\/bill\/[^/?]+\?price=\$\{AUCTION_PRICE\}$/);
      // The exchange clears at $0.05 CPM (below our bid).
      const win = await (await fetch(bid?.nurl.replace('${AUCTION_PRICE}', '0.05') ?? '')).json();
      expect(win).toEqual({ ok: true, counted: false });
      const bills = [];
      for (const e of [own, engine])
        for (let i = 0; i < 2; i++)
          bills.push(
            await (await fetch((bid?.burl ?? '').replace(own.base, e.base).replace('${AUCTION_PRICE}', '0.05'))).json(),
          );
      expect(bills).toEqual([{ ok: true, counted: true }, ...Array<unknown>(3).fill({ ok: true, counted: false })]);
      await own.engine.events.flush();
      const wins = (await streamedEvents(fx.app.svc.redis, engine)).filter(
        (e) => e.type === 'win' && e.bid_id === bid?.id,
      );
      expect(wins).toEqual([
        expect.objectContaining({ partner_id: id, price_micro_cents: 5_000, charge_nano: 50_000 }),
      ]);
      // A forged billing notice is refused like a forged win notice.
      expect((await fetch(`${own.base}/openrtb/bill/forged?price=1`)).status).toBe(403);
    } finally {
      await own.stop();
      for (const p of others)
        await call(fx.app, 'POST', `/api/admin/partners/${p}/enable`, { token: world.admin.token });
      if (id) await call(fx.app, 'POST', `/api/admin/partners/${id}/disable`, { token: world.admin.token });
    }
  });
});

describe('config sync', () => {
  it('an admin change reaches a running engine in milliseconds, and survives a Redis restart', async () => {
    await world.partner();
    const a = await world.advertiser(50_000);
    // The only native campaign, and only for Japan: its no-bid after the pause is unambiguous.
    const { campaign } = await world.campaign(a, { geo_include: ['jp'], format: 'native' });
    const jp = bannerRequest(
      { device: { geo: { country: 'JPN' }, language: 'en' } },
      { banner: undefined, native: { request: '{}' } },
    );
    await eventually(async () => (await postBid(engine.base, jp)).status === 200);
    const paused = performance.now();
    await call(fx.app, 'POST', `/api/adv/campaigns/${campaign.id}/pause`, { token: a.token });
    const waited = await eventually(() => engine.engine.mirror.index?.campaigns.get(campaign.id)?.status === 'paused');
    expect(performance.now() - paused).toBeLessThan(5_000);
    expect(waited).toBeGreaterThanOrEqual(0);
    expect((await postBid(engine.base, jp)).status).toBe(204);

    await fx.redis.restart();
    // A change made after the restart, while the engine was reconnecting, still arrives.
    let resumed = 0;
    await eventually(
      async () =>
        (resumed = (
          await call(fx.app, 'POST', `/api/adv/campaigns/${campaign.id}/activate`, { token: a.token }).catch(() => ({
            status: 0,
          }))
        ).status) === 200,
      10_000,
    );
    expect(resumed).toBe(200);
    await eventually(() => engine.engine.mirror.index?.campaigns.get(campaign.id)?.status === 'active', 10_000);
    await eventually(async () => (await postBid(engine.base, jp).catch(() => ({ status: 0 }))).status === 200, 10_000);
  });

  it('two engines on one Redis serve the same answer', async () => {
    const second = await startEngine(fx.redis.url);
    try {
      await eventually(() => second.engine.mirror.index?.seq === engine.engine.mirror.index?.seq);
      const req = bannerRequest();
      // Each engine bids once its budget slices have arrived.
      await eventually(async () => (await postBid(second.base, req)).status === 200);
      const [x, y] = await Promise.all([postBid(engine.base, req), postBid(second.base, req)]);
      const pick = (r: typeof x) =>
        (r.body as { seatbid: { bid: { cid: string; crid: string; price: number }[] }[] }).seatbid[0]?.bid[0];
      expect(x.status).toBe(200);
      expect([pick(x)?.cid, pick(x)?.crid, pick(x)?.price]).toEqual([pick(y)?.cid, pick(y)?.crid, pick(y)?.price]);
    } finally {
      await second.stop();
    }
  });
});

describe('events', () => {
  it('every bid, no-bid and win lands once in the Redis stream', async () => {
    await world.partner();
    const tag = `ev-${Date.now()}`;
    const bidIds: string[] = [];
    for (let i = 0; i < 20; i++) {
      const r = await postBid(engine.base, bannerRequest({ id: `${tag}-${i}` }));
      const bid = (r.body as { seatbid?: { bid: { id: string; nurl: string }[] }[] }).seatbid?.[0]?.bid[0];
      if (bid) {
        bidIds.push(bid.id);
        if (i % 2 === 0) await fetch(bid.nurl.replace('${AUCTION_PRICE}', '0.05'));
      }
    }
    for (let i = 0; i < 5; i++) await postBid(engine.base, bannerRequest({ id: `${tag}-nb-${i}`, bcat: ['IAB22'] }));
    const events = await streamedEvents(fx.app.svc.redis, engine);
    const mine = events.filter(
      (e) => e.auction_id?.startsWith(tag) || (e.bid_id && bidIds.includes(e.bid_id) && e.type === 'win'),
    );
    expect(mine.filter((e) => e.type === 'bid')).toHaveLength(20);
    expect(mine.filter((e) => e.type === 'nobid').map((e) => e.reason)).toEqual(Array(5).fill('blocked_category'));
    expect(mine.filter((e) => e.type === 'win')).toHaveLength(10);
    expect(new Set(events.map((e) => e.id)).size).toBe(events.length);
  });
});
