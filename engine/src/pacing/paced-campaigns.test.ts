import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildIndex } from '../index/engine-index.ts';
import type { ConfigState, EngineIndex } from '../index/engine-index.ts';
import { campaignFixture, creativeFixture } from '../../test/fixtures/index-fixtures.ts';
import { FULL_DELTA } from '../index/index-update.ts';
import { Publisher } from '../../test/fixtures/published-fixture.ts';
import type { ConfigChange } from '../index/index-update.ts';
import { PacedCampaigns, isPaced } from './paced-campaigns.ts';
import type { Repace } from './paced-campaigns.ts';

// The pacer's list of even-paced campaigns, followed from the index's deltas, holds the campaigns a full look at
// the index finds after every change sequence: campaigns switching pacing, paused, deleted and put back, losing
// or gaining their only creative, snapshots rebuilt whole. Few ids, so changes collide.

const IDS = 5;

const change: fc.Arbitrary<ConfigChange> = fc.oneof(
  fc
    .record({
      id: fc.integer({ min: 1, max: IDS }),
      pacing: fc.constantFrom('even' as const, 'asap' as const),
      active: fc.boolean(),
      cents: fc.nat(50),
    })
    .map(({ id, pacing, active, cents }): ConfigChange => ({
      kind: 'campaign',
      id,
      op: 'put',
      value: campaignFixture({ id, pacing, status: active ? 'active' : 'paused', daily_budget_cents: cents }),
    })),
  fc.integer({ min: 1, max: IDS }).map((id): ConfigChange => ({ kind: 'campaign', id, op: 'del' })),
  // Creative `id` belongs to campaign `campaign`: moving it can leave a campaign with nothing to serve.
  fc
    .record({
      id: fc.integer({ min: 1, max: IDS + 2 }),
      campaign: fc.integer({ min: 1, max: IDS }),
      approved: fc.boolean(),
    })
    .map(({ id, campaign, approved }): ConfigChange => ({
      kind: 'creative',
      id,
      op: 'put',
      value: creativeFixture({ id, campaign_id: campaign, status: approved ? 'approved' : 'rejected' }),
    })),
  fc.integer({ min: 1, max: IDS + 2 }).map((id): ConfigChange => ({ kind: 'creative', id, op: 'del' })),
);
type Step = { changes: ConfigChange[] } | { snapshot: ConfigChange[] } | 'look';
const steps: fc.Arbitrary<Step[]> = fc.array(
  fc.oneof(
    { weight: 5, arbitrary: fc.array(change, { minLength: 1, maxLength: 4 }).map((changes) => ({ changes })) },
    { weight: 1, arbitrary: fc.array(change, { maxLength: 4 }).map((snapshot) => ({ snapshot })) },
    { weight: 3, arbitrary: fc.constant('look' as const) },
  ),
  { maxLength: 30 },
);

function startState(): ConfigState {
  const campaign = new Map<number, unknown>();
  const creative = new Map<number, unknown>();
  for (let id = 1; id <= IDS; id++) {
    campaign.set(id, campaignFixture({ id, pacing: id % 2 ? 'even' : 'asap' }));
    creative.set(id, creativeFixture({ id, campaign_id: id }));
  }
  return { campaign, creative, partner: new Map(), site: new Map(), zone: new Map(), deal: new Map() };
}

/** What a full look at `index` finds, in id order. */
const pacedIn = (index: EngineIndex): number[] =>
  [...index.paces.keys()].filter((id) => isPaced(index, id)).sort((a, b) => a - b);

async function look(list: PacedCampaigns, index: EngineIndex): Promise<{ how: Repace; seen: Map<number, boolean> }> {
  const seen = new Map<number, boolean>();
  const how = await list.update(
    index,
    () => Promise.resolve(),
    (id, paced) => {
      expect(seen.has(id)).toBe(false);
      seen.set(id, paced);
    },
  );
  return { how, seen };
}

describe("the pacer's campaigns, followed from the index's deltas", () => {
  it('equal a full look at the index after any sequence of changes, looking only at the changed campaigns', async () => {
    await fc.assert(
      fc.asyncProperty(steps, async (all) => {
        // Told every index, as the engine's mirror tells its pacer; `untold` hears of none and looks at everything.
        const told = new PacedCampaigns();
        const untold = new PacedCampaigns();
        const at = new Publisher(startState(), (index, delta) => told.indexChanged(index, delta));
        expect((await look(told, at.index)).how).toBe('all');
        await look(untold, at.index);
        at.published();
        for (const s of [...all, 'look' as const]) {
          if (s === 'look') {
            const before = [...told.ids.keys()];
            const { named, any, whole } = at.published();
            const { how, seen } = await look(told, at.index);
            expect([...told.ids.keys()].sort((a, b) => a - b)).toEqual(pacedIn(at.index));
            expect(how).toBe(whole ? 'all' : any ? 'some' : 'none');
            if (how === 'some') expect(new Set(seen.keys())).toEqual(named);
            // Every campaign reported is reported as it is now; those that stayed keep their places.
            for (const [id, paced] of seen) expect(paced).toBe(isPaced(at.index, id));
            const stayed = before.filter((id) => told.ids.has(id));
            expect([...told.ids.keys()].slice(0, stayed.length)).toEqual(stayed);
            await look(untold, at.index);
            expect([...untold.ids.keys()].sort((a, b) => a - b)).toEqual(pacedIn(at.index));
          } else if ('snapshot' in s) at.snapshot(s.snapshot);
          else at.change(s.changes);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('look at nothing when no index was published since', async () => {
    const index = buildIndex(startState(), '1-0');
    const list = new PacedCampaigns();
    list.indexChanged(index, FULL_DELTA);
    expect((await look(list, index)).seen).toEqual(
      new Map([
        [1, true],
        [3, true],
        [5, true],
      ]),
    );
    expect(await look(list, index)).toEqual({ how: 'none', seen: new Map() });
  });
});
