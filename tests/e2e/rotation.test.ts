import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, useTestApp } from '@adnet/test-support/admin';
import type { Account } from '@adnet/test-support/admin';
import { eventually } from '@adnet/test-support/engine';
import type { TestEngine } from '@adnet/test-support/engine';
import { World } from '@adnet/test-support/world';
import {
  RotationTraffic,
  phaseOf,
  recordPhases,
  startRotationEngine,
  twoCreativeCampaign,
} from '@adnet/test-support/rotation-traffic';
import type { RotationPhase } from '@adnet/test-support/rotation-traffic';

// Creative rotation through the real engine: every creative serves; with `optimize`, the one people
// click takes most of the traffic once the counts are in, and a new creative still gets measured.

const fx = useTestApp();
let world: World;
let engine: TestEngine;
let adv: Account;
let campaignId = 0;
let zone = '';
const creatives: Record<'a' | 'b' | 'c', number> = { a: 0, b: 0, c: 0 };
let visitors: RotationTraffic;

beforeAll(async () => {
  world = await World.create(fx.app);
  const made = await twoCreativeCampaign(world);
  ({ adv, campaignId, zone } = made);
  Object.assign(creatives, made.creatives);
  engine = await startRotationEngine(fx.redis.url, zone);
  visitors = new RotationTraffic([engine], zone, 9);
  await new Promise((r) => setTimeout(r, 300));
}, 60_000);
afterAll(async () => {
  await engine.stop();
  recordPhases('rotation.test.ts', phases);
});

const phases: RotationPhase[] = [];
/** `n` ad requests; the traffic shares of each phase go to bench/results/rotation-shares.json. */
async function traffic(n: number, clickRate: Record<string, number> = {}, phase = ''): Promise<Record<string, number>> {
  const seen = await visitors.run(n, clickRate);
  if (phase) phases.push(phaseOf(phase, seen));
  return seen;
}

const sharedImpressions = async () => {
  const counts = await fx.app.svc.redis.hgetall(`rot:{c:${campaignId}}`);
  return Object.entries(counts)
    .filter(([k]) => k.startsWith('i:'))
    .reduce((s, [, v]) => s + Number(v), 0);
};

describe('rotation: optimize', () => {
  it('serves every creative, then gives most of the traffic to the one people click', async () => {
    const first = await traffic(
      300,
      { 'Creative A': 0.2 },
      'optimize, learning: A clicked 20%, B never (300 requests)',
    );
    // Both serve (the shares already move during this phase: the engine refreshes every 200 ms here).
    expect(first['Creative A']).toBeGreaterThan(30);
    expect(first['Creative B']).toBeGreaterThan(15);
    // The engine shares its counts and recomputes the shares.
    await eventually(async () => (await sharedImpressions()) >= 300, 5_000);
    await new Promise((r) => setTimeout(r, 500));
    const later = await traffic(300, {}, 'optimize, after learning (300 requests)');
    expect(later['Creative A']).toBeGreaterThan(240);
    // The loser keeps its exploration share (5% of 300 on average).
    expect(later['Creative B'] ?? 0).toBeGreaterThanOrEqual(3);
  });

  it('measures a new creative: it gets its exploration share at least', async () => {
    creatives.c = await world.creative(adv, campaignId, 'native', { title: 'Creative C' });
    await eventually(() => engine.engine.mirror.index?.candidateCount === 3);
    await new Promise((r) => setTimeout(r, 500));
    const seen = await traffic(300, {}, 'optimize, new creative C added (300 requests)');
    // At least a share of the 10% split evenly (10 of 300 on average), and A still leads.
    expect(seen['Creative C'] ?? 0).toBeGreaterThanOrEqual(4);
    expect(seen['Creative A'] ?? 0).toBeGreaterThan(seen['Creative B'] ?? 0);
  });
});

describe('rotation: even and weighted, and creatives the advertiser stops', () => {
  it('follows the weights, and serves nothing of a paused or archived creative', async () => {
    expect(
      (
        await call(fx.app, 'PATCH', `/api/adv/campaigns/${campaignId}`, {
          token: adv.token,
          json: { rotation: 'weighted' },
        })
      ).status,
    ).toBe(200);
    for (const [id, weight] of [
      [creatives.a, 75],
      [creatives.b, 25],
      [creatives.c, 0],
    ] as const) {
      const r = await call<{ status: string; weight: number }>(fx.app, 'PATCH', `/api/adv/creatives/${id}`, {
        token: adv.token,
        json: { weight },
      });
      // A weight alone is no new content: still approved.
      expect(r.body).toMatchObject({ status: 'approved', weight });
    }
    await eventually(() => engine.engine.mirror.index?.creatives.get(creatives.c)?.weight === 0);
    const weighted = await traffic(400, {}, 'weighted 75/25/0 (400 requests)');
    expect(weighted['Creative C']).toBeUndefined();
    expect(weighted['Creative A']).toBeGreaterThan(250);
    expect(weighted['Creative B']).toBeGreaterThan(60);

    expect(
      (await call(fx.app, 'POST', `/api/adv/creatives/${creatives.a}/pause`, { token: adv.token })).body,
    ).toMatchObject({ status: 'paused' });
    expect(
      (await call(fx.app, 'POST', `/api/adv/creatives/${creatives.c}/archive`, { token: adv.token })).body,
    ).toMatchObject({ status: 'archived' });
    expect((await call(fx.app, 'POST', `/api/adv/creatives/${creatives.c}/resume`, { token: adv.token })).status).toBe(
      409,
    );
    await eventually(() => engine.engine.mirror.index?.candidateCount === 1);
    expect(Object.keys(await traffic(50))).toEqual(['Creative B']);
    expect(
      (await call(fx.app, 'POST', `/api/adv/creatives/${creatives.a}/resume`, { token: adv.token })).body,
    ).toMatchObject({ status: 'approved' });
  });

  it('sends an edited creative back to moderation, and refuses bad weights and other owners', async () => {
    const edited = await call<{ status: string; title: string }>(fx.app, 'PATCH', `/api/adv/creatives/${creatives.b}`, {
      token: adv.token,
      json: { title: 'Creative B, new words' },
    });
    expect(edited.body).toMatchObject({ status: 'pending_moderation', title: 'Creative B, new words' });
    // A text the format does not require can be cleared (null, or the empty text a form sends); a required one cannot.
    const withBody = await call(fx.app, 'PATCH', `/api/adv/creatives/${creatives.b}`, {
      token: adv.token,
      json: { body: 'Some words' },
    });
    expect(withBody.body).toMatchObject({ body: 'Some words' });
    expect(
      (await call(fx.app, 'PATCH', `/api/adv/creatives/${creatives.b}`, { token: adv.token, json: { body: '' } })).body,
    ).toMatchObject({
      body: null,
      title: 'Creative B, new words',
      status: 'pending_moderation',
    });
    await call(fx.app, 'PATCH', `/api/adv/creatives/${creatives.b}`, { token: adv.token, json: { cta_text: 'Go' } });
    expect(
      (await call(fx.app, 'PATCH', `/api/adv/creatives/${creatives.b}`, { token: adv.token, json: { cta_text: null } }))
        .body,
    ).toMatchObject({
      cta_text: null,
    });
    const required = await call<{ errors: Record<string, string> }>(
      fx.app,
      'PATCH',
      `/api/adv/creatives/${creatives.b}`,
      {
        token: adv.token,
        json: { title: null },
      },
    );
    expect(required.status).toBe(400);
    expect(Object.keys(required.body.errors)).toEqual(['title']);
    const bad = await call<{ errors: Record<string, string> }>(fx.app, 'PATCH', `/api/adv/creatives/${creatives.a}`, {
      token: adv.token,
      json: { weight: 101, landing_url: 'ftp://x' },
    });
    expect(bad.status).toBe(400);
    expect(Object.keys(bad.body.errors).sort()).toEqual(['landing_url', 'weight']);
    const stranger = await world.advertiser(0);
    expect(
      (await call(fx.app, 'POST', `/api/adv/creatives/${creatives.a}/pause`, { token: stranger.token })).status,
    ).toBe(403);
    expect(
      (
        await call(fx.app, 'PATCH', `/api/adv/campaigns/${campaignId}`, {
          token: adv.token,
          json: { rotation: 'random' },
        })
      ).status,
    ).toBe(400);
  });
});
