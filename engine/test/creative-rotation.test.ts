import { rotationCountsKey } from '@adnet/schemas/redis-keys';
import { markMoved } from '@adnet/runtime/moved-marks';
import type { Creative, StoredCampaign } from '@adnet/schemas/api';
import type { EngineEvent } from '@adnet/schemas/events';
import fc from 'fast-check';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRedis } from '@adnet/test-support/redis';
import type { TestRedis } from '@adnet/test-support/redis';
import { buildIndex } from '../src/index/engine-index.ts';
import type { EngineIndex } from '../src/index/engine-index.ts';
import { campaignFixture, creativeFixture } from './fixtures/index-fixtures.ts';
import { FULL_DELTA, updateIndex } from '../src/index/index-update.ts';
import { CreativeRotation } from '../src/rotation/creative-rotation.ts';
import { seededRandom } from '../src/rotation/rotation-policy.ts';
import { commandsDuring, keysOf } from './support/redis-commands.ts';

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
  const creatives = new Map(
    Array.from({ length: CAMPAIGNS * 2 }, (_, k) => [
      k + 1,
      creativeFixture({ id: k + 1, campaign_id: Math.floor(k / 2) + 1 }),
    ]),
  );
  index = buildIndex(
    { campaign: campaigns, creative: creatives, partner: new Map(), site: new Map(), zone: new Map(), deal: new Map() },
    '1-0',
  );
});
afterAll(async () => {
  await redis.quit();
  await server.stop();
});

/** Campaign c's first creative (id 2c - 1) clicked far more than its second (id 2c), as another writer would: counts, then the mark. */
const skew = async (c: number) => {
  await redis.hset(rotationCountsKey(c), {
    [`i:${2 * c - 1}`]: 5_000,
    [`k:${2 * c - 1}`]: 300,
    [`i:${2 * c}`]: 5_000,
    [`k:${2 * c}`]: 10,
  });
  await markMoved(redis, 'rotation', [c]);
};

/** How often `rotation` serves campaign c's first creative, of 2 000 picks among c's two in `of`. */
function favoured(rotation: CreativeRotation, c: number, of = index): number {
  const siblings =
    [...of.slots.values()].find((list) => list.some((x) => x.campaignId === c))?.filter((x) => x.campaignId === c) ??
    [];
  expect(siblings).toHaveLength(2);
  let first = 0;
  for (let i = 0; i < 2_000; i++) if (rotation.pick(siblings).creativeId === 2 * c - 1) first++;
  return first / 2_000;
}

describe('the shared creative rotation', () => {
  it('draws nothing for campaigns without evidence, and only moved campaigns after that, one refresh at a time within the budget', async () => {
    let draws = 0;
    const rand = seededRandom(7);
    const rotation = new CreativeRotation({ redis, index: () => index, random: () => (draws++, rand()), budgetMs: 0 });
    await rotation.refresh();
    // Every campaign new: even shares, exactly, for free.
    expect(draws).toBe(0);

    for (let c = 1; c <= 3; c++) await skew(c);
    // A budget of 0 still draws one campaign per refresh: three refreshes for three moved campaigns.
    const learned = () => [1, 2, 3].map((c) => favoured(rotation, c)).filter((share) => share > 0.8).length;
    for (const expected of [1, 2, 3]) {
      const before = draws;
      await rotation.refresh();
      expect(draws).toBeGreaterThan(before);
      expect(learned()).toBe(expected);
    }
    // Campaigns without evidence still split evenly.
    for (const c of [4, 5, 6]) expect(favoured(rotation, c)).toBeGreaterThan(0.4);
    for (const c of [4, 5, 6]) expect(favoured(rotation, c)).toBeLessThan(0.6);
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
    current = buildIndex(
      {
        campaign: campaigns,
        creative: creatives,
        partner: new Map(),
        site: new Map(),
        zone: new Map(),
        deal: new Map(),
      },
      '2-0',
    );
    await rotation.refresh();
    let first = 0;
    const siblings =
      [...current.slots.values()]
        .find((list) => list.some((x) => x.campaignId === 101))
        ?.filter((x) => x.campaignId === 101) ?? [];
    expect(siblings).toHaveLength(2);
    for (let i = 0; i < 2_000; i++) if (rotation.pick(siblings).creativeId === 201) first++;
    expect(first / 2_000).toBeGreaterThan(0.8);
  });
});

/** An event of engine `rotation`'s own traffic, as `observe` sees it. */
const served = (type: 'impression' | 'click', campaign: number, creative: number) =>
  ({ type, campaign_id: campaign, creative_id: creative }) as EngineEvent;
/** What a refresh leaves to serve from: the shares, and the counts each campaign's were drawn from. */
const stateOf = (rotation: CreativeRotation) => {
  const r = rotation as unknown as { shares: Map<number, number>; drawn: Map<number, { counts: string }> };
  return { shares: r.shares, drawn: new Map([...r.drawn].map(([c, d]) => [c, d.counts])) };
};

describe('a refresh reads what moved', () => {
  it("sees another engine's counts at its next refresh, and reads no other campaign's", async () => {
    await redis.flushdb();
    const other = new Redis(server.url);
    try {
      const here = new CreativeRotation({ redis, index: () => index, random: seededRandom(1), sweepPasses: 0 });
      const there = new CreativeRotation({ redis: other, index: () => index, random: seededRandom(2), sweepPasses: 0 });
      await here.refresh();
      await there.refresh();
      // The other engine serves campaign 2: its first creative (3) is clicked far more than its second (4).
      for (let i = 0; i < 2_000; i++) for (const cr of [3, 4]) there.observe(served('impression', 2, cr));
      for (let i = 0; i < 150; i++) there.observe(served('click', 2, 3));
      await there.refresh();
      const commands = await commandsDuring(redis, () => here.refresh());
      expect(keysOf(commands, 'hgetall')).toEqual([rotationCountsKey(2)]);
      expect(favoured(here, 2)).toBeGreaterThan(0.8);
      // Nothing moved since: the marks of the last 30 s are read again, no other campaign is.
      expect(keysOf(await commandsDuring(redis, () => here.refresh()), 'hgetall')).toEqual([rotationCountsKey(2)]);
    } finally {
      await other.quit();
    }
  });

  it('gives the shares a full read and a full regroup give, whatever moved, the budget, and the groups', async () => {
    // Three creatives a campaign: pausing one leaves a group that still optimizes, with other creatives.
    const campaigns = new Map(Array.from({ length: CAMPAIGNS }, (_, i) => [i + 1, campaignFixture({ id: i + 1 })]));
    const creatives = new Map(
      Array.from({ length: CAMPAIGNS * 3 }, (_, k) => [
        k + 1,
        creativeFixture({ id: k + 1, campaign_id: Math.floor(k / 3) + 1 }),
      ]),
    );
    const step = fc.oneof(
      {
        weight: 4,
        arbitrary: fc.record({
          kind: fc.constant('count' as const),
          creative: fc.integer({ min: 1, max: CAMPAIGNS * 3 }),
          field: fc.constantFrom('i', 'k', 'v'),
          n: fc.integer({ min: 1, max: 400 }),
        }),
      },
      {
        weight: 3,
        arbitrary: fc.record({ kind: fc.constant('refresh' as const), after: fc.constantFrom(1_000, 10_000, 60_000) }),
      },
      {
        weight: 1,
        arbitrary: fc.record({
          kind: fc.constant('toggle' as const),
          id: fc.integer({ min: 1, max: CAMPAIGNS * 3 }),
          what: fc.constantFrom('creative', 'rotation', 'campaign'),
        }),
      },
      // Counts gone (expired after 30 days unserved), marked as a writer would.
      {
        weight: 1,
        arbitrary: fc.record({ kind: fc.constant('gone' as const), campaign: fc.integer({ min: 1, max: CAMPAIGNS }) }),
      },
    );
    await fc.assert(
      fc.asyncProperty(fc.boolean(), fc.array(step, { maxLength: 40, size: 'medium' }), async (unlimited, steps) => {
        await redis.flushdb();
        const paused = new Set<number>();
        const even = new Set<number>();
        const removed = new Set<number>();
        const state = {
          campaign: new Map(campaigns),
          creative: new Map(creatives),
          partner: new Map(),
          site: new Map(),
          zone: new Map(),
          deal: new Map(),
        };
        let current = buildIndex(state, '1-0');
        let seq = 1;
        // A clock of its own: marks leave the window of later refreshes as they would over minutes.
        let clock = Date.now();
        const options = { redis, index: () => current, budgetMs: unlimited ? 1e9 : 0, now: () => clock };
        // Told every index's delta, as the engine's mirror tells it: regroups only the campaigns changed. `full` is
        // told nothing, so it regroups every campaign at each new index, and reads every campaign's counts.
        const marked = new CreativeRotation({ ...options, random: seededRandom(5), sweepPasses: 0 });
        const full = new CreativeRotation({ ...options, random: seededRandom(5), sweepPasses: 1 });
        for (const s of [...steps, { kind: 'refresh' as const, after: 10_000 }]) {
          if (s.kind === 'count') {
            const campaign = (creatives.get(s.creative) as { campaign_id: number }).campaign_id;
            await redis.hincrby(rotationCountsKey(campaign), `${s.field}:${s.creative}`, s.n);
            await markMoved(redis, 'rotation', [campaign], clock);
          } else if (s.kind === 'gone') {
            await redis.del(rotationCountsKey(s.campaign));
            await markMoved(redis, 'rotation', [s.campaign], clock);
          } else if (s.kind === 'toggle') {
            const [set, id] =
              s.what === 'creative' ? [paused, s.id] : [s.what === 'rotation' ? even : removed, Math.ceil(s.id / 3)];
            if (!set.delete(id)) set.add(id);
            const campaign = {
              ...(campaigns.get(id) as StoredCampaign),
              rotation: even.has(id) ? ('even' as const) : ('optimize' as const),
            };
            const next = updateIndex(
              current,
              state,
              [
                s.what === 'creative'
                  ? {
                      kind: 'creative',
                      id,
                      op: 'put',
                      value: { ...(creatives.get(id) as Creative), status: paused.has(id) ? 'paused' : 'approved' },
                    }
                  : removed.has(id)
                    ? { kind: 'campaign', id, op: 'del' }
                    : { kind: 'campaign', id, op: 'put', value: campaign },
              ],
              `${++seq}-0`,
            );
            current = next.index;
            marked.indexChanged(current, next.delta);
          } else {
            clock += s.after;
            await marked.refresh();
            await full.refresh();
            expect(stateOf(marked)).toEqual(stateOf(full));
          }
        }
      }),
      {
        numRuns: 60,
        // Two campaigns due, a draw budget for one, and the other's mark out of the window by the next refresh.
        examples: [
          [
            false,
            [
              { kind: 'count', creative: 1, field: 'i', n: 100 },
              { kind: 'count', creative: 4, field: 'i', n: 100 },
              { kind: 'refresh', after: 60_000 },
              { kind: 'refresh', after: 60_000 },
            ],
          ],
        ],
      },
    );
  });

  it('drops the shares and the draw of a campaign that leaves the optimizing groups, told by the index delta alone', async () => {
    await redis.flushdb();
    const state = {
      campaign: new Map(index.campaigns),
      creative: new Map(index.creatives),
      partner: new Map(),
      site: new Map(),
      zone: new Map(),
      deal: new Map(),
    };
    let current = buildIndex(state, '1-0');
    const rotation = new CreativeRotation({ redis, index: () => current, random: seededRandom(4), sweepPasses: 0 });
    rotation.indexChanged(current, FULL_DELTA);
    await rotation.refresh();
    for (const c of [3, 4]) await skew(c);
    await rotation.refresh();
    const creativesOf = (c: number) => [2 * c - 1, 2 * c];
    for (const c of [3, 4])
      expect([...stateOf(rotation).shares.keys()]).toEqual(expect.arrayContaining(creativesOf(c)));
    // Campaign 3 switches to even rotation, campaign 4 is removed; nothing marks either as moved.
    for (const change of [
      {
        kind: 'campaign' as const,
        id: 3,
        op: 'put' as const,
        value: { ...(index.campaigns.get(3) as StoredCampaign), rotation: 'even' as const },
      },
      { kind: 'campaign' as const, id: 4, op: 'del' as const },
    ]) {
      const next = updateIndex(current, state, [change], '2-0');
      current = next.index;
      rotation.indexChanged(current, next.delta);
    }
    await rotation.refresh();
    const after = stateOf(rotation);
    for (const c of [3, 4]) {
      expect(after.drawn.has(c)).toBe(false);
      for (const id of creativesOf(c)) expect(after.shares.has(id)).toBe(false);
    }
    expect(after.drawn.has(5)).toBe(true);
  });

  it('finds within its sweep the counts whose mark was lost; without the sweep they wait for the next mark', async () => {
    await redis.flushdb();
    const swept = new CreativeRotation({ redis, index: () => index, sweepPasses: 3 });
    const unswept = new CreativeRotation({ redis, index: () => index, sweepPasses: 0 });
    await swept.refresh();
    await unswept.refresh();
    await skew(5);
    // The marks' bucket is gone (a failover that kept the counts' shard and lost the marks').
    await redis.del(...(await redis.keys('{moved:rotation}:*')));
    for (let i = 0; i < 3; i++) {
      await swept.refresh();
      await unswept.refresh();
    }
    expect(favoured(swept, 5)).toBeGreaterThan(0.8);
    expect(favoured(unswept, 5)).toBeLessThan(0.6);
  });
});
