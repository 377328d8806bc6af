import { budgetDay } from '@adnet/schemas/budget-day';
import { centsToNano } from '@adnet/schemas/money';
import { markMoved } from '@adnet/runtime/moved-marks';
import { campaignPoolKey } from '@adnet/schemas/redis-keys';
import { WEEKDAYS, compileSchedule, servingTimeOfDay } from '@adnet/schemas/schedule';
import type { StoredCampaign } from '@adnet/schemas/api';
import fc from 'fast-check';
import type { Redis } from 'ioredis';
import { beforeEach, describe, expect, it } from 'vitest';
import type { ConfigState, EngineIndex } from '../src/index/engine-index.ts';
import { campaignFixture, creativeFixture } from './fixtures/index-fixtures.ts';
import { FULL_DELTA } from '../src/index/index-update.ts';
import type { ConfigChange, IndexDelta } from '../src/index/index-update.ts';
import { Publisher } from './fixtures/published-fixture.ts';
import { isPaced } from '../src/pacing/paced-campaigns.ts';
import { Pacer } from '../src/pacing/pacer.ts';
import { initialPacing, nextPacing } from '../src/pacing/pacing-controller.ts';
import type { PacingState } from '../src/pacing/pacing-controller.ts';
import { useTestRedis } from './support/test-redis.ts';

// The pacer told of each index's delta, stepping only the controllers that a step can move, arrives at the
// states and rates of a tick that reads every paced campaign's spend and steps every controller with
// nextPacing, whatever spends, budget changes, pacing switches, deletions, schedules, snapshots and gaps
// between ticks come; and a tick in which little moved looks at little.

const fx = useTestRedis();
const IDS = 6;

beforeEach(async () => {
  await fx.client.flushdb();
});

/** Every even-paced campaign read and stepped at every tick: the pacer's numbers before it let controllers rest. */
class EveryCampaign {
  states = new Map<number, PacingState>();
  private day = '';

  async tick(redis: Redis, index: EngineIndex, now: number): Promise<void> {
    const day = budgetDay(now);
    if (day !== this.day) {
      this.day = day;
      this.states = new Map();
    }
    const dayStart = Date.parse(`${day}T00:00:00Z`);
    for (const id of this.states.keys()) if (!isPaced(index, id)) this.states.delete(id);
    for (const id of index.paces.keys()) {
      const campaign = index.campaigns.get(id) as StoredCampaign;
      if (!isPaced(index, id)) continue;
      const spent = Number((await redis.hget(campaignPoolKey(id, day), 'spent')) ?? 0);
      const s = this.states.get(id);
      const serving = servingTimeOfDay(compileSchedule(campaign), dayStart);
      this.states.set(
        id,
        s
          ? nextPacing(s, {
              now,
              spent,
              budget: centsToNano(campaign.daily_budget_cents),
              dayEnd: dayStart + 86_400_000,
              serving,
            })
          : initialPacing(now, spent),
      );
    }
  }
}

const campaignOf = (id: number, cents: number, pacing: 'even' | 'asap', hours: number[] | null): StoredCampaign =>
  campaignFixture({
    id,
    daily_budget_cents: cents,
    pacing,
    dayparting: hours && Object.fromEntries(WEEKDAYS.map((d) => [d, hours])),
  });

const campaignChange = fc
  .record({
    id: fc.integer({ min: 1, max: IDS }),
    cents: fc.integer({ min: 0, max: 6 }),
    pacing: fc.constantFrom('even' as const, 'even' as const, 'asap' as const),
    hours: fc.option(fc.uniqueArray(fc.integer({ min: 0, max: 23 }), { minLength: 1, maxLength: 12 }), { freq: 3 }),
  })
  .map(({ id, cents, pacing, hours }): ConfigChange => ({
    kind: 'campaign',
    id,
    op: 'put',
    value: campaignOf(id, cents, pacing, hours),
  }));
const change = fc.oneof(
  { weight: 4, arbitrary: campaignChange },
  {
    weight: 1,
    arbitrary: fc.integer({ min: 1, max: IDS }).map((id): ConfigChange => ({ kind: 'campaign', id, op: 'del' })),
  },
);
const step = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.record({ spend: fc.integer({ min: 1, max: IDS }), nano: fc.integer({ min: 1, max: 30_000_000 }) }),
  },
  {
    weight: 6,
    arbitrary: fc.record({
      tick: fc.constantFrom(-5_000, 0, 1_000, 10_000, 10_000, 10_000, 900_000, 3_600_000, 7 * 3_600_000),
    }),
  },
  { weight: 2, arbitrary: fc.record({ changes: fc.array(change, { minLength: 1, maxLength: 3 }) }) },
  { weight: 1, arbitrary: fc.record({ snapshot: fc.array(change, { maxLength: 3 }) }) },
);

function startState(): ConfigState {
  const campaign = new Map<number, unknown>();
  const creative = new Map<number, unknown>();
  for (let id = 1; id <= IDS; id++) {
    campaign.set(id, campaignOf(id, id, 'even', id % 3 ? null : [1, 2, 9, 10, 11, 20]));
    creative.set(id, creativeFixture({ id, campaign_id: id }));
  }
  return { campaign, creative, partner: new Map(), site: new Map(), zone: new Map(), deal: new Map() };
}

const ratesOf = (index: EngineIndex) => new Map([...index.paces].map(([id, pace]) => [id, pace.rate]));

describe('the pacer told of the index deltas', () => {
  it('arrives at the states and rates of stepping every controller at every tick', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { maxLength: 50 }), async (steps) => {
        await fx.client.flushdb();
        let clock = Date.parse(`${budgetDay(Date.now())}T00:00:00Z`) + 3_600_000;
        let told: (index: EngineIndex, delta: IndexDelta) => void = () => undefined;
        const at = new Publisher(startState(), (index, delta) => told(index, delta));
        const pacer = new Pacer(
          fx.client,
          () => at.index,
          () => clock,
          0,
        );
        told = (index, delta) => pacer.indexChanged(index, delta);
        pacer.indexChanged(at.index, FULL_DELTA);
        const every = new EveryCampaign();
        for (const s of [...steps, { tick: 10_000 }]) {
          if ('spend' in s) {
            await fx.client.hincrby(campaignPoolKey(s.spend, budgetDay(clock)), 'spent', s.nano);
            await markMoved(fx.client, 'spent', [s.spend], clock);
          } else if ('changes' in s) at.change(s.changes);
          else if ('snapshot' in s) at.snapshot(s.snapshot);
          else {
            clock += s.tick;
            await pacer.tick();
            await every.tick(fx.client, at.index, clock);
            expect(pacer.pacing()).toEqual(every.states);
            expect(ratesOf(at.index)).toEqual(
              new Map([...at.index.paces.keys()].map((id) => [id, every.states.get(id)?.rate ?? 1])),
            );
          }
        }
      }),
      { numRuns: 2000 },
    );
  });

  it('looks at the campaigns that moved or changed, not at every campaign', async () => {
    const n = 2_000;
    const looked = { count: 0 };
    /** A map that counts the entries looked up or walked. */
    class Counted<V> extends Map<number, V> {
      override get(id: number): V | undefined {
        looked.count++;
        return super.get(id);
      }
      override *keys(): MapIterator<number> {
        for (const id of super.keys()) {
          looked.count++;
          yield id;
        }
      }
    }
    const campaigns = new Counted<StoredCampaign>();
    const paces = new Counted<{ rate: number }>();
    for (let id = 1; id <= n; id++) {
      campaigns.set(id, campaignFixture({ id }));
      paces.set(id, { rate: 1 });
    }
    let index = { campaigns, paces } as unknown as EngineIndex;
    let clock = Date.parse(`${budgetDay(Date.now())}T00:00:00Z`) + 3_600_000;
    const day = budgetDay(clock);
    const pacer = new Pacer(
      fx.client,
      () => index,
      () => clock,
      0,
    );
    pacer.indexChanged(index, FULL_DELTA);
    const tick = async () => {
      clock += 10_000;
      looked.count = 0;
      await pacer.tick();
      return looked.count;
    };
    // The first tick reads every campaign; none spends, so every controller rests from there on.
    expect(await tick()).toBeGreaterThan(n);
    expect(await tick()).toBeLessThan(10);
    // Campaign 7 spends: its controller moves until it is back at rest.
    await fx.client.hincrby(campaignPoolKey(7, day), 'spent', 2_000_000);
    await markMoved(fx.client, 'spent', [7], clock);
    expect(await tick()).toBeLessThan(20);
    expect(pacer.pacing().get(7)?.lastSpent).toBe(2_000_000);
    // Campaign 9's budget runs out (a new index naming it): the next tick looks at it alone.
    campaigns.set(9, campaignFixture({ id: 9, daily_budget_cents: 0 }));
    index = { ...index };
    pacer.indexChanged(index, { full: false, campaigns: new Set([9]) });
    expect(await tick()).toBeLessThan(20);
    expect(index.paces.get(9)?.rate).toBe(0.0001);
    for (let i = 0; i < 20; i++) expect(await tick()).toBeLessThan(20);
  });
});
