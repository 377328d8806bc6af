import { campaignPoolKey } from '@adnet/schemas/redis-keys';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, useTestApp } from '@adnet/test-support/admin';
import { freePort } from '@adnet/test-support/redis';
import { drainBudget } from '@adnet/test-support/budget-drain';
import { eventually, postBid, startEngine } from '@adnet/test-support/engine';
import type { TestEngine } from '@adnet/test-support/engine';
import { startNginx } from '@adnet/test-support/nginx';
import type { TestNginx } from '@adnet/test-support/nginx';
import { World, bannerRequest } from '@adnet/test-support/world';

// Three engines behind a real nginx, as a deployment runs them: partners reach the balancer, which
// round-robins over the engines and tells them the partner's address in X-Forwarded-For.
const fx = useTestApp();
let world: World;
let engines: TestEngine[];
let nginx: TestNginx;
const BIDDER = '198.51.100.7';
const BURSTY = '198.51.100.8';
const QPS = 30;
const SLICE_CENTS = 10;

beforeAll(async () => {
  world = await World.create(fx.app);
  await world.partner([BIDDER], 100_000);
  await world.partner([BURSTY], QPS);
  const port = await freePort();
  // ENGINE_COUNT: each engine admits a third of a partner's QPS; tracking links point at the balancer.
  const env = {
    ENGINE_COUNT: '3',
    TRUSTED_PROXIES: '127.0.0.1',
    PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
    BUDGET_SLICE_CENTS: String(SLICE_CENTS),
  };
  engines = await Promise.all([0, 1, 2].map(() => startEngine(fx.redis.url, env)));
  nginx = await startNginx(
    port,
    engines.map((e) => new URL(e.base).host),
  );
}, 60_000);
afterAll(async () => {
  await nginx?.stop();
  await Promise.all((engines ?? []).map((e) => e.stop()));
});

describe('three engines behind nginx', () => {
  it('spreads requests over all three and knows a partner by the address the balancer forwards', async () => {
    const seen = new Set<string>();
    for (let i = 0; i < 30; i++)
      seen.add(((await (await fetch(`${nginx.base}/engine/healthz`)).json()) as { engine: string }).engine);
    expect(seen).toEqual(new Set(engines.map((e) => e.engine.id)));
    // The balancer's own address is on no allow-list; the forwarded one is. A partner cannot forge its way in
    // by sending the header: nginx appends the real address, and that is the one the engines take.
    expect((await postBid(nginx.base, bannerRequest())).status).toBe(403);
    expect((await postBid(nginx.base, bannerRequest(), { 'x-forwarded-for': BIDDER })).status).not.toBe(403);
  });

  it("holds a partner's QPS limit across the engines", async () => {
    let admitted = 0;
    let limited = 0;
    const started = performance.now();
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        for (let i = 0; i < 40; i++) {
          const r = await postBid(nginx.base, bannerRequest(), { 'x-forwarded-for': BURSTY });
          if (r.status === 429) limited++;
          else admitted++;
        }
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    // Each engine's bucket holds one second of its third and refills at a third of the rate:
    // at most QPS x (1 + seconds) in all, however the requests were spread.
    expect(admitted).toBeLessThanOrEqual(Math.ceil(QPS * (1 + seconds)));
    expect(admitted).toBeGreaterThanOrEqual(QPS * 0.8);
    expect(limited).toBeGreaterThan(0);
  });

  it('holds a daily budget across the engines, wins settled by whichever engine the balancer picks', async () => {
    const adv = await world.advertiser(1_000_000);
    const { campaign } = await world.campaign(adv, { geo_include: ['au'], daily_budget_usd: 1, bid_usd: 6 });
    await Promise.all(
      engines.map((e) => eventually(() => e.engine.mirror.index?.campaigns.get(campaign.id)?.status === 'active')),
    );
    const { wins, nobidsAfter } = await drainBudget(engines, 'AUS', {
      base: nginx.base,
      headers: { 'x-forwarded-for': BIDDER },
    });
    expect(nobidsAfter).toBe(40);
    expect(wins).toBeGreaterThanOrEqual(200 - (3 * SLICE_CENTS) / 0.5);
    expect(wins).toBeLessThanOrEqual(200);
    const spent = Number(
      await fx.app.svc.redis.hget(campaignPoolKey(campaign.id, new Date().toISOString().slice(0, 10)), 'spent'),
    );
    expect(spent).toBe(wins * 5_000_000);
    const bal = await call<{ balance_cents: number }>(fx.app, 'GET', '/api/adv/balance', { token: adv.token });
    expect(bal.body.balance_cents).toBe(1_000_000 - Math.floor(wins * 0.5));
  }, 60_000);
});
