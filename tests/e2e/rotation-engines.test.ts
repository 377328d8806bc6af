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

// Rotation over two engines: the counts each engine records reach the other through Redis, so the
// better creative is found from impressions split between them; and `even` splits evenly.

const fx = useTestApp();
let engines: TestEngine[];
let adv: Account;
let campaignId = 0;
let zone = '';
let visitors: RotationTraffic;
const phases: RotationPhase[] = [];

beforeAll(async () => {
  const world = await World.create(fx.app);
  ({ adv, campaignId, zone } = await twoCreativeCampaign(world));
  engines = await Promise.all([0, 1].map(() => startRotationEngine(fx.redis.url, zone)));
  visitors = new RotationTraffic(engines, zone, 11);
}, 60_000);
afterAll(async () => {
  await Promise.all(engines.map((e) => e.stop()));
  recordPhases('rotation-engines.test.ts', phases);
});

const sharedImpressions = async (): Promise<Record<string, number>> => {
  const counts = await fx.app.svc.redis.hgetall(`rot:{c:${campaignId}}`);
  return Object.fromEntries(
    Object.entries(counts)
      .filter(([k]) => k.startsWith('i:'))
      .map(([k, v]) => [k, Number(v)]),
  );
};
const total = (counts: Record<string, number>) => Object.values(counts).reduce((s, n) => s + n, 0);

describe('rotation: optimize, two engines', () => {
  it('finds the better creative from impressions split between the engines; both, and an engine started later, serve it', async () => {
    // Each engine sees every other request: half the evidence each.
    const learning = await visitors.run(300, { 'Creative A': 0.2 });
    phases.push(phaseOf('optimize, learning over two engines: A clicked 20%, B never (300 requests)', learning));
    // Both engines' impressions are in the one shared count.
    await eventually(async () => total(await sharedImpressions()) >= 300, 5_000);
    await new Promise((r) => setTimeout(r, 600));
    // Each engine on its own now favours A: it learnt from the other's half too.
    for (const [i, engine] of engines.entries()) {
      const seen = await visitors.run(150, {}, [engine]);
      phases.push(phaseOf(`optimize, after learning, engine ${i + 1} alone (150 requests)`, seen));
      expect(seen['Creative A'] ?? 0, `engine ${i + 1}`).toBeGreaterThan(115);
    }
    // An engine started now has seen nothing itself: its shares can come only from the shared counts.
    const fresh = await startRotationEngine(fx.redis.url, zone);
    try {
      await new Promise((r) => setTimeout(r, 600));
      const seen = await visitors.run(150, {}, [fresh]);
      phases.push(phaseOf('optimize, an engine started after learning, alone (150 requests)', seen));
      expect(seen['Creative A'] ?? 0, 'fresh engine').toBeGreaterThan(115);
    } finally {
      await fresh.stop();
    }
  });
});

describe('rotation: even', () => {
  it('splits evenly, within what chance allows', async () => {
    expect(
      (
        await call(fx.app, 'PATCH', `/api/adv/campaigns/${campaignId}`, {
          token: adv.token,
          json: { rotation: 'even' },
        })
      ).status,
    ).toBe(200);
    await Promise.all(
      engines.map((e) => eventually(() => e.engine.mirror.index?.campaigns.get(campaignId)?.rotation === 'even')),
    );
    const n = 600;
    const seen = await visitors.run(n);
    phases.push(phaseOf(`even over two engines (${n} requests)`, seen));
    const served = total(seen);
    expect(served).toBe(n);
    // Each creative's count is Binomial(n, 1/2): within 4 standard deviations of n/2, which a fair
    // split misses with probability 6e-5 (two-sided normal tail at z = 4); 49 of 600, where optimize's
    // split from before (A at about 90%) is 240 away.
    const sd = Math.sqrt(served * 0.5 * 0.5);
    for (const title of ['Creative A', 'Creative B'])
      expect(Math.abs((seen[title] ?? 0) - served / 2), title).toBeLessThanOrEqual(4 * sd);
  });
});
