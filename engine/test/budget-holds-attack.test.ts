import { budgetDay } from '@adnet/schemas/budget-day';
import { balanceKey, campaignPoolKey } from '@adnet/schemas/redis-keys';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BudgetSlices } from '../src/budget/budget-slices.ts';
import { candidateOf } from '../src/index/candidate.ts';
import { campaignFixture, creativeFixture } from './fixtures/index-fixtures.ts';
import { seededRandom } from '../src/rotation/rotation-policy.ts';
import { useTestRedis } from './support/test-redis.ts';

// Three engines bid one campaign's budget dry against a real Redis, far past what it can pay, on a shared clock
// that runs for four minutes: their re-bases in flight while they bid, prices that differ from bid to bid, wins
// arriving up to 45 s after their bids at whichever engine the notice reaches, three bids in ten never won
// (their holds lapse after 60 s and the money goes back to the pool, for more bids). Every hold an engine gives back is what its own bookkeeping of
// outstanding bids says was settled or lapsed: if it ever gave back a hold a win still needs, that win's spend
// lands beside the other engines' holds and spent + held passes the budget. Checked after every step, and the
// spend counted once per win.
const redis = useTestRedis();
const CENT = 10_000_000;
// Second prices differ from one auction to the next: 0.06 to 0.18 cents an impression.
const PRICES_MICRO_CENTS = [60_000, 120_000, 180_000];
const LIMIT_CENTS = 100;
let nextCampaign = 0;

describe('budget holds under three engines bidding past the budget', () => {
  it('never let spend plus holds pass the budget, and count each win once, through wins, losses and lapsed holds', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 2 ** 31 - 1 }), async (seed) => {
        const rand = seededRandom(seed);
        const id = ++nextCampaign;
        let clock = Date.parse('2026-11-24T12:00:00Z');
        const now = () => clock;
        const c = candidateOf(
          campaignFixture({
            id,
            advertiser_id: id,
            bid_type: 'cpm',
            bid_micro_cents: 180_000,
            daily_budget_cents: LIMIT_CENTS,
          }),
          creativeFixture({ campaign_id: id }),
        );
        await redis.client.set(balanceKey(id), 1_000_000);
        const pool = campaignPoolKey(id, budgetDay(clock));
        const engines = ['e1', 'e2', 'e3'].map(
          (engineId) => new BudgetSlices({ redis: redis.client, engineId, sliceCents: 5, now }),
        );
        for (const b of engines) b.prewarm([c]);

        const wins: { due: number; engine: number; nano: number }[] = [];
        let wonNano = 0;
        let refused = 0;
        const spentAndHeld = async () => {
          const h = await redis.client.hmget(pool, 'spent', 'held');
          return { spent: Number(h[0] ?? 0), held: Number(h[1] ?? 0) };
        };
        const deliver = (until: number) => {
          for (let i = wins.length - 1; i >= 0; i--) {
            const w = wins[i] as { due: number; engine: number; nano: number };
            if (w.due > until) continue;
            // A win notice may reach any engine; the spend goes against the hold of the engine that bid.
            (engines[Math.floor(rand() * engines.length)] as BudgetSlices).recordSpend(
              id,
              id,
              budgetDay(clock),
              w.nano,
              `e${w.engine + 1}`,
            );
            wonNano += w.nano;
            wins.splice(i, 1);
          }
        };

        for (let step = 0; step < 240; step++) {
          clock += 1_000;
          engines.forEach((b, e) => {
            for (let k = Math.floor(rand() * 12); k > 0; k--) {
              const price = PRICES_MICRO_CENTS[Math.floor(rand() * PRICES_MICRO_CENTS.length)] as number;
              if (!b.tryTake(c, price)) refused++;
              else if (rand() < 0.7)
                wins.push({ due: clock + Math.floor(rand() * 45_000), engine: e, nano: price * 10 });
            }
          });
          deliver(clock);
          // Flushes at random: the spend and the re-bases' replies arrive out of step with the bids.
          await Promise.all(engines.map((b) => (rand() < 0.5 ? b.flush() : new Promise((r) => setImmediate(r)))));
          const { spent, held } = await spentAndHeld();
          expect(spent + held, `step ${step}`).toBeLessThanOrEqual(LIMIT_CENTS * CENT);
        }
        deliver(Infinity);
        await Promise.all(engines.map((b) => b.flush()));
        await Promise.all(engines.map((b) => b.flush()));
        const { spent, held } = await spentAndHeld();
        expect(spent).toBe(wonNano);
        expect(spent + held).toBeLessThanOrEqual(LIMIT_CENTS * CENT);
        // The attack reached the budget: bids were refused, and most of the budget went to wins.
        expect(refused).toBeGreaterThan(0);
        expect(spent).toBeGreaterThan(0.5 * LIMIT_CENTS * CENT);
      }),
      { numRuns: 4 },
    );
  });
});
