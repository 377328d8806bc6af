import { describe, expect, it } from 'vitest';
import { candidateFixture } from '../../test/fixtures/auction-fixtures.ts';
import { seededRandom } from '../rotation/rotation-policy.ts';
import { FrequencyCapCache } from './frequency-caps.ts';
import type { FrequencyStore } from './frequency-caps.ts';
import type { CapCount } from './user-counts.ts';
import { UNCOUNTED_MS, UserCounts } from './user-counts.ts';

const H = 3_600_000;
const counts = (entries: [number, CapCount][]) => new Map(entries);

describe("one engine's copy of a user's counts", () => {
  it('caps at the shared count plus the ads it served and has not seen counted', () => {
    const u = new UserCounts();
    u.applyRead(counts([[1, { total: 2, own: 0, ends: 10 * H }]]));
    expect(u.capped(1, 3, 0)).toBe(false);
    u.served(1, 0);
    expect(u.capped(1, 3, 0)).toBe(true);
    // Its ad counted (own 1): the shared count now holds it, no longer twice.
    u.applyRead(counts([[1, { total: 3, own: 1, ends: 10 * H }]]));
    expect(u.capped(1, 3, 1)).toBe(true);
    expect(u.capped(1, 4, 1)).toBe(false);
  });

  it('serves at most one ad per campaign before seeing it counted, and takes it as lost after a minute', () => {
    const u = new UserCounts();
    u.served(1, 0);
    expect(u.capped(1, 100, 1)).toBe(true);
    expect(u.wantsRead(1)).toBe(true);
    expect(u.capped(1, 100, UNCOUNTED_MS)).toBe(false);
    // Another campaign is not held back by it.
    u.served(2, UNCOUNTED_MS);
    expect(u.capped(1, 100, UNCOUNTED_MS)).toBe(false);
  });

  it("forgets a period's count once it ended, and confirms own ads counted in a new one", () => {
    const u = new UserCounts();
    u.applyRead(counts([[1, { total: 5, own: 5, ends: H }]]));
    expect(u.capped(1, 5, H - 1)).toBe(true);
    expect(u.capped(1, 5, H)).toBe(false);
    u.served(1, H);
    u.applyRead(counts([[1, { total: 1, own: 1, ends: 2 * H }]]));
    expect(u.capped(1, 2, H + 1)).toBe(false);
  });

  it('reads at first sight, when stale, and while waiting to see its ad counted; one read at a time', () => {
    const u = new UserCounts();
    expect(u.wantsRead(0)).toBe(true);
    u.readSent(0);
    expect(u.wantsRead(5_000)).toBe(false);
    u.applyRead(new Map());
    expect(u.wantsRead(10)).toBe(false);
    expect(u.wantsRead(1_000)).toBe(true);
    u.readSent(1_000);
    u.readFailed();
    u.served(1, 1_001);
    expect(u.wantsRead(1_002)).toBe(true);
  });
});

/**
 * E engines, one shared store with Redis's semantics (commands apply in the order each engine sends
 * them; replies come back late), a user asking for ads at random engines, each served ad counted
 * later at a random engine or never (a lost bid). Whatever the interleaving, the user gets at most
 * N + E - 1 counted ads in the period, and gets the N it may have.
 */
describe('the error bound across engines', () => {
  const N = 3;

  function simulate(engines: number, seed: number) {
    const random = seededRandom(seed);
    let now = 0;
    const queue: { at: number; run: () => void }[] = [];
    const later = (delay: number, run: () => void) => queue.push({ at: now + delay, run });
    // The shared store: one user, one campaign, one period.
    let total = 0;
    const own = new Map<string, number>();
    const store = (engine: string): FrequencyStore => ({
      read: () => {
        const snapshot = counts([[7, { total, own: own.get(engine) ?? 0, ends: 100 * H }]]);
        return new Promise((resolve) => later(random() * 300, () => resolve(snapshot)));
      },
      count: (_user, _campaign, servedBy) => {
        total++;
        own.set(servedBy, (own.get(servedBy) ?? 0) + 1);
        return Promise.resolve();
      },
    });
    const ids = Array.from({ length: engines }, (_, i) => `e${i}`);
    const caches = ids.map((id) => new FrequencyCapCache({ store: store(id), maxUsers: 10 }));
    const c = candidateFixture({ id: 7, frequency_cap: { impressions: N, period_hours: 100 } });
    let served = 0;
    // Twenty visits over ten minutes, each a burst of ten requests within a second.
    for (let request = 0; request < 200; request++) {
      later(Math.floor(request / 10) * 30_000 + random() * 1_000, () => {
        const e = Math.floor(random() * engines);
        const viewer = (caches[e] as FrequencyCapCache).viewer('w:the-one-user-id', now);
        if (!viewer || viewer.capped(c)) return;
        viewer.served(c);
        served++;
        const user = viewer.key;
        // Counted within two seconds at any engine, or never (the bid was lost).
        if (random() < 0.8) {
          later(random() * 2_000, () => {
            const by = caches[Math.floor(random() * engines)] as FrequencyCapCache;
            by.counted({ user, campaignId: 7, periodHours: 100, servedBy: ids[e] as string }, now);
          });
        }
      });
    }
    return { queue, caches, tick: (at: number) => (now = at), result: () => ({ total, served }) };
  }

  async function run(engines: number, seed: number) {
    const sim = simulate(engines, seed);
    while (sim.queue.length) {
      sim.queue.sort((a, b) => a.at - b.at);
      const next = sim.queue.shift() as { at: number; run: () => void };
      sim.tick(next.at);
      next.run();
      // Let the replies' callbacks run before time moves on.
      for (let i = 0; i < 5; i++) await Promise.resolve();
    }
    return sim.result();
  }

  it.each([1, 2, 3, 5])('%i engines: at most N + E - 1 counted, and at least N', async (engines) => {
    let worst = 0;
    for (let seed = 1; seed <= 40; seed++) {
      const { total } = await run(engines, seed * 7919 + engines);
      expect(total).toBeLessThanOrEqual(N + engines - 1);
      expect(total).toBeGreaterThanOrEqual(N);
      worst = Math.max(worst, total);
    }
    // One engine is exact.
    if (engines === 1) expect(worst).toBe(N);
  });
});
