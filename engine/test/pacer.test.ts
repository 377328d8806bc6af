import { budgetDay } from '@adnet/schemas/budget-day';
import { markMoved } from '@adnet/runtime/moved-marks';
import { balanceKey, campaignPoolKey } from '@adnet/schemas/redis-keys';
import fc from 'fast-check';
import { Redis } from 'ioredis';
import { beforeEach, describe, expect, it } from 'vitest';
import { BudgetSlices } from '../src/budget/budget-slices.ts';
import { RedisDirectCharger } from '../src/budget/direct-charges.ts';
import type { EngineIndex } from '../src/index/engine-index.ts';
import { campaignFixture } from './fixtures/index-fixtures.ts';
import { Pacer } from '../src/pacing/pacer.ts';
import type { PacingState } from '../src/pacing/pacing-controller.ts';
import { MovedMarks } from '../src/store/moved.ts';
import { commandsDuring, keysOf } from './support/redis-commands.ts';
import { useTestRedis } from './support/test-redis.ts';

// The pacer's tick against a real Redis: it reads the spend of the campaigns marked as moved (by any
// engine's spend flush or direct charge, or the admin), steps every other campaign with the spend it had,
// and so arrives at the rates a read of every campaign's spend gives.

const fx = useTestRedis();
const CAMPAIGNS = 8;

beforeEach(async () => {
  await fx.client.flushdb();
});

/** The pacer's view of the index: campaigns (`asap` ones not paced) and their pace handles. */
function indexOf(asap: ReadonlySet<number> = new Set()): EngineIndex {
  const campaigns = new Map(
    Array.from({ length: CAMPAIGNS }, (_, i) => [
      i + 1,
      campaignFixture({ id: i + 1, pacing: asap.has(i + 1) ? 'asap' : 'even' }),
    ]),
  );
  return { campaigns, paces: new Map([...campaigns.keys()].map((id) => [id, { rate: 1 }])) } as unknown as EngineIndex;
}
const statesOf = (pacer: Pacer): Map<number, PacingState> => pacer.pacing();
/** Pacers of the given sweeps over one index, on a clock of the test's own (`clock`, from now). */
function pacersOnAClock(...sweeps: number[]) {
  const index = indexOf();
  const at = { clock: Date.now(), day: '', pacers: [] as Pacer[] };
  at.day = budgetDay(at.clock);
  at.pacers = sweeps.map(
    (sweep) =>
      new Pacer(
        fx.client,
        () => index,
        () => at.clock,
        sweep,
      ),
  );
  return at;
}
const ratesOf = (index: EngineIndex) => new Map([...index.paces].map(([id, pace]) => [id, pace.rate]));

describe('a tick reads the spend that moved', () => {
  it("sees another engine's spend and direct charges at its next tick, and reads no other campaign's", async () => {
    const index = indexOf();
    const pacer = new Pacer(fx.client, () => index, Date.now, 0);
    expect(keysOf(await commandsDuring(fx.client, () => pacer.tick()), 'hget')).toHaveLength(CAMPAIGNS);
    const other = new Redis(fx.server.url);
    try {
      // Another engine: win spend on campaign 3 through its spend flush, a click charged to campaign 4.
      const marks = new MovedMarks(other, 'spent');
      const budget = new BudgetSlices({ redis: other, engineId: 'e2', sliceCents: 10, spentMarks: marks });
      const day = budgetDay(Date.now());
      await fx.client.set(balanceKey(1), 1_000);
      const charged = await new RedisDirectCharger(other, marks).charge({
        campaignId: 4,
        advertiserId: 1,
        dailyBudgetCents: 10_000,
        totalBudgetCents: -1,
        bidType: 'cpc',
        day,
        nano: 20_000_000,
        at: Date.now(),
        reason: 'click spend',
      });
      expect(charged).toBe('charged');
      budget.recordSpend(3, 1, day, 5_000_000, 'e2');
      await budget.flush();
      const read = keysOf(await commandsDuring(fx.client, () => pacer.tick()), 'hget');
      expect(read.sort()).toEqual([campaignPoolKey(3, day), campaignPoolKey(4, day)]);
      expect(statesOf(pacer).get(3)?.lastSpent).toBe(5_000_000);
      expect(statesOf(pacer).get(4)?.lastSpent).toBe(20_000_000);
      // Every campaign was stepped, the unmoved ones with the spend they had.
      for (const s of statesOf(pacer).values()) expect(s.spentAt).toBe(statesOf(pacer).get(3)?.spentAt);
    } finally {
      await other.quit();
    }
  });

  it('arrives at the rates a read of every campaign gives, whatever moved and when', async () => {
    const step = fc.oneof(
      fc.record({
        kind: fc.constant('spend' as const),
        campaign: fc.integer({ min: 1, max: CAMPAIGNS }),
        nano: fc.integer({ min: 1, max: 50_000_000 }),
      }),
      fc.record({ kind: fc.constant('tick' as const), after: fc.constantFrom(1_000, 10_000, 40_000, 40_000) }),
      fc.record({ kind: fc.constant('toggle' as const), campaign: fc.integer({ min: 1, max: CAMPAIGNS }) }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(step, { maxLength: 40 }), async (steps) => {
        await fx.client.flushdb();
        const asap = new Set<number>();
        // One index each: both pacers write their rates into their index's pace handles.
        let indexes = [indexOf(), indexOf()];
        // A clock of its own, from today's start: marks leave the window of later ticks as over minutes.
        let clock = Date.parse(`${budgetDay(Date.now())}T00:00:00Z`) + 3_600_000;
        const day = budgetDay(clock);
        const marked = new Pacer(
          fx.client,
          () => indexes[0],
          () => clock,
          0,
        );
        const full = new Pacer(
          fx.client,
          () => indexes[1],
          () => clock,
          1,
        );
        for (const s of [...steps, { kind: 'tick' as const, after: 10_000 }]) {
          if (s.kind === 'spend') {
            await fx.client.hincrby(campaignPoolKey(s.campaign, day), 'spent', s.nano);
            await markMoved(fx.client, 'spent', [s.campaign], clock);
          } else if (s.kind === 'toggle') {
            if (!asap.delete(s.campaign)) asap.add(s.campaign);
            indexes = [indexOf(asap), indexOf(asap)];
          } else {
            clock += s.after;
            await marked.tick();
            await full.tick();
            expect(statesOf(marked)).toEqual(statesOf(full));
            expect(ratesOf(indexes[0] as EngineIndex)).toEqual(ratesOf(indexes[1] as EngineIndex));
          }
        }
      }),
      { numRuns: 60 },
    );
  });

  it('reads a mark written by a clock 25 s behind its own, or landing 25 s late', async () => {
    const at = pacersOnAClock(0);
    const [pacer] = at.pacers as [Pacer];
    await pacer.tick();
    at.clock += 10_000;
    await pacer.tick();
    // Charged now, marked in the bucket of 25 s ago: before this pacer's last tick.
    await fx.client.hincrby(campaignPoolKey(2, at.day), 'spent', 3_000_000);
    await markMoved(fx.client, 'spent', [2], at.clock - 25_000);
    at.clock += 10_000;
    await pacer.tick();
    expect(statesOf(pacer).get(2)?.lastSpent).toBe(3_000_000);
  });

  it('finds within its sweep the spend whose mark was lost; without the sweep it waits for the next mark', async () => {
    const at = pacersOnAClock(2, 0);
    const [swept, unswept] = at.pacers as [Pacer, Pacer];
    await swept.tick();
    await unswept.tick();
    await fx.client.hincrby(campaignPoolKey(6, at.day), 'spent', 7_000_000);
    await markMoved(fx.client, 'spent', [6], at.clock);
    // The marks' bucket is gone (a failover that kept the pool's shard and lost the marks').
    await fx.client.del(...(await fx.client.keys('{moved:spent}:*')));
    for (let i = 0; i < 2; i++) {
      at.clock += 10_000;
      await swept.tick();
      await unswept.tick();
    }
    expect(statesOf(swept).get(6)?.lastSpent).toBe(7_000_000);
    expect(statesOf(unswept).get(6)?.lastSpent).toBe(0);
  });
});
