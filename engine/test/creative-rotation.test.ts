import { rotationCountsKey } from '@adnet/schemas/redis-keys';
import { markMoved } from '@adnet/schemas/moved-marks';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRedis } from '../../tests/e2e/support/redis.ts';
import type { TestRedis } from '../../tests/e2e/support/redis.ts';
import { buildIndex } from '../src/index/engine-index.ts';
import type { EngineIndex } from '../src/index/engine-index.ts';
import { campaignFixture, creativeFixture } from '../src/index/fixtures.ts';
import { CreativeRotation } from '../src/rotation/creative-rotation.ts';
import { seededRandom } from '../src/rotation/rotation-policy.ts';

// The shared rotation's refresh against a real Redis: shares are drawn only for campaigns whose counts
// moved, longest-waiting first, within a budget per refresh; the rest keep theirs until their turn.

let server: TestRedis;
let redis: Redis;
const CAMPAIGNS = 6;
let index: EngineIndex;

beforeAll(async () => {
  server = await startRedis();
  redis = new Redis(server.url);
  const campaigns = new Map(Array.from({ length: CAMPAIGNS }, (_, i) => [i + 1, campaignFixture({ id: i + 1 })]));
  const creatives = new Map(Array.from({ length: CAMPAIGNS * 2 }, (_, k) => [k + 1, creativeFixture({ id: k + 1, campaign_id: Math.floor(k / 2) + 1 })]));
  index = buildIndex({ campaign: campaigns, creative: creatives, partner: new Map(), site: new Map(), zone: new Map(), deal: new Map() }, '1-0');
});
afterAll(async () => {
  await redis.quit();
  await server.stop();
});

/** Campaign c's first creative (id 2c - 1) clicked far more than its second (id 2c), as another writer would: counts, then the mark. */
const skew = async (c: number) => {
  await redis.hset(rotationCountsKey(c), { [`i:${2 * c - 1}`]: 5_000, [`k:${2 * c - 1}`]: 300, [`i:${2 * c}`]: 5_000, [`k:${2 * c}`]: 10 });
  await markMoved(redis, 'rotation', [c]);
};

describe('the shared creative rotation', () => {
  it('draws nothing for campaigns without evidence, and only moved campaigns after that, one refresh at a time within the budget', async () => {
    let draws = 0;
    const rand = seededRandom(7);
    const rotation = new CreativeRotation({ redis, index: () => index, random: () => (draws++, rand()), budgetMs: 0 });
    await rotation.refresh();
    // Every campaign new: even shares, exactly, for free.
    expect(draws).toBe(0);

    for (let c = 1; c <= 3; c++) await skew(c);
    const favoured = (c: number) => {
      let first = 0;
      const siblings =
        index.slots
          .values()
          .next()
          .value?.filter((x) => x.campaignId === c) ?? [];
      expect(siblings).toHaveLength(2);
      for (let i = 0; i < 2_000; i++) if (rotation.pick(siblings).creativeId === 2 * c - 1) first++;
      return first / 2_000;
    };
    // A budget of 0 still draws one campaign per refresh: three refreshes for three moved campaigns.
    const learned = () => [1, 2, 3].map(favoured).filter((share) => share > 0.8).length;
    for (const expected of [1, 2, 3]) {
      const before = draws;
      await rotation.refresh();
      expect(draws).toBeGreaterThan(before);
      expect(learned()).toBe(expected);
    }
    // Campaigns without evidence still split evenly.
    for (const c of [4, 5, 6]) expect(favoured(c)).toBeGreaterThan(0.4);
    for (const c of [4, 5, 6]) expect(favoured(c)).toBeLessThan(0.6);
    // Unmoved campaigns cost nothing more.
    const settled = draws;
    await rotation.refresh();
    expect(draws).toBe(settled);
  });

  it('groups the creatives anew when the index changes: a campaign added later gets its shares', async () => {
    let current = index;
    const rotation = new CreativeRotation({ redis, index: () => current, random: seededRandom(3) });
    await rotation.refresh();
    const campaigns = new Map(index.campaigns).set(101, campaignFixture({ id: 101 }));
    const creatives = new Map(index.creatives)
      .set(201, creativeFixture({ id: 201, campaign_id: 101 }))
      .set(202, creativeFixture({ id: 202, campaign_id: 101 }));
    await redis.hset(rotationCountsKey(101), { 'i:201': 5_000, 'k:201': 300, 'i:202': 5_000, 'k:202': 10 });
    current = buildIndex({ campaign: campaigns, creative: creatives, partner: new Map(), site: new Map(), zone: new Map(), deal: new Map() }, '2-0');
    await rotation.refresh();
    const siblings = [...current.slots.values()].find((list) => list.some((x) => x.campaignId === 101))?.filter((x) => x.campaignId === 101) ?? [];
    expect(siblings).toHaveLength(2);
    let first = 0;
    for (let i = 0; i < 2_000; i++) if (rotation.pick(siblings).creativeId === 201) first++;
    expect(first / 2_000).toBeGreaterThan(0.8);
  });
});
