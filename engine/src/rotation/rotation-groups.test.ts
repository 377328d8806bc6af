import type { Creative } from '@adnet/schemas/api';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildIndex } from '../index/engine-index.ts';
import type { ConfigState, EngineIndex } from '../index/engine-index.ts';
import { campaignFixture, creativeFixture } from '../../test/fixtures/index-fixtures.ts';
import { FULL_DELTA, updateIndex } from '../index/index-update.ts';
import { Publisher } from '../../test/fixtures/published-fixture.ts';
import type { ConfigChange } from '../index/index-update.ts';
import { RotationGroups } from './rotation-groups.ts';
import type { Regroup } from './rotation-groups.ts';

// The rotation's groups regrouped from the index's deltas equal those of a full regroup after every change
// sequence, and each refresh reports the same group changes (the rotation's unread marks, dropped shares and
// draws follow from them): creatives added, approved, rejected, moved between campaigns or deleted, campaigns
// switching rotation, removed and put back, snapshots rebuilt whole. Few ids, so changes collide.

const CAMPAIGNS = 6;
const CREATIVES = 16;
const ROTATIONS = ['optimize', 'optimize', 'even', 'weighted'] as const;
const STATUSES = ['approved', 'approved', 'approved', 'rejected', 'pending_moderation', 'paused'] as const;

const creativeChange = fc.oneof(
  {
    weight: 4,
    arbitrary: fc
      .record({
        id: fc.integer({ min: 1, max: CREATIVES }),
        // One past the campaigns: a creative of a campaign the configuration does not hold.
        campaign: fc.integer({ min: 1, max: CAMPAIGNS + 1 }),
        status: fc.constantFrom(...STATUSES),
        weight: fc.integer({ min: 0, max: 100 }),
      })
      .map((r): ConfigChange => ({
        kind: 'creative',
        id: r.id,
        op: 'put',
        value: creativeFixture({ id: r.id, campaign_id: r.campaign, status: r.status, weight: r.weight }),
      })),
  },
  {
    weight: 1,
    arbitrary: fc.integer({ min: 1, max: CREATIVES }).map((id): ConfigChange => ({ kind: 'creative', id, op: 'del' })),
  },
);
const campaignChange = fc.oneof(
  {
    weight: 3,
    arbitrary: fc
      .record({
        id: fc.integer({ min: 1, max: CAMPAIGNS + 1 }),
        rotation: fc.constantFrom(...ROTATIONS),
        paused: fc.boolean(),
      })
      .map((r): ConfigChange => ({
        kind: 'campaign',
        id: r.id,
        op: 'put',
        value: campaignFixture({ id: r.id, rotation: r.rotation, status: r.paused ? 'paused' : 'active' }),
      })),
  },
  {
    weight: 1,
    arbitrary: fc
      .integer({ min: 1, max: CAMPAIGNS + 1 })
      .map((id): ConfigChange => ({ kind: 'campaign', id, op: 'del' })),
  },
);
const step = fc.oneof(
  { weight: 6, arbitrary: fc.array(fc.oneof(creativeChange, campaignChange), { minLength: 1, maxLength: 3 }) },
  // A change that touches no campaign: a new index all the same.
  { weight: 1, arbitrary: fc.constant([{ kind: 'site', id: 1, op: 'del' } satisfies ConfigChange]) },
  { weight: 3, arbitrary: fc.constant('refresh' as const) },
  // A snapshot read whole (a trimmed log, a Redis restarted): it holds changes no delta named.
  {
    weight: 1,
    arbitrary: fc
      .array(fc.oneof(creativeChange, campaignChange), { maxLength: 3 })
      .map((changes) => ({ snapshot: changes })),
  },
);

const world = fc.record({
  rotations: fc.array(fc.constantFrom(...ROTATIONS), { minLength: CAMPAIGNS, maxLength: CAMPAIGNS }),
  creatives: fc.array(
    fc.record({ campaign: fc.integer({ min: 1, max: CAMPAIGNS }), status: fc.constantFrom(...STATUSES) }),
    {
      minLength: CREATIVES - 4,
      maxLength: CREATIVES - 4,
    },
  ),
});

function stateOf(w: {
  rotations: readonly (typeof ROTATIONS)[number][];
  creatives: readonly { campaign: number; status: Creative['status'] }[];
}): ConfigState {
  return {
    campaign: new Map(w.rotations.map((rotation, i) => [i + 1, campaignFixture({ id: i + 1, rotation })])),
    creative: new Map(
      w.creatives.map((c, i) => [i + 1, creativeFixture({ id: i + 1, campaign_id: c.campaign, status: c.status })]),
    ),
    partner: new Map(),
    site: new Map(),
    zone: new Map(),
    deal: new Map(),
  };
}

const pause = () => Promise.resolve();
const idsOf = (groups: ReadonlyMap<number, readonly Creative[]>) =>
  new Map([...groups].map(([c, g]) => [c, g.map((cr) => cr.id)]));

/** Brings `groups` to `index`, answering the changes it reported as `campaign -> [ids before, ids now]`. */
async function regroup(
  groups: RotationGroups,
  index: EngineIndex,
): Promise<{ how: Regroup; changes: Map<number, [number[], number[]]> }> {
  const changes = new Map<number, [number[], number[]]>();
  const how = await groups.update(index, pause, (c, was, now) => {
    expect(changes.has(c)).toBe(false);
    changes.set(c, [(was ?? []).map((cr) => cr.id), (now ?? []).map((cr) => cr.id)]);
  });
  return { how, changes };
}

describe("the rotation's groups, regrouped from the index's deltas", () => {
  it('equal a full regroup after any sequence of changes, with the same group changes reported', async () => {
    await fc.assert(
      fc.asyncProperty(world, fc.array(step, { maxLength: 40 }), async (w, steps) => {
        // Told every index, as the engine's mirror tells its rotation; `full` is told none and regroups everything.
        const told = new RotationGroups();
        const full = new RotationGroups();
        const at = new Publisher(stateOf(w), (index, delta) => told.indexChanged(index, delta));
        expect((await regroup(told, at.index)).how).toBe('all');
        await regroup(full, at.index);
        at.published();
        for (const s of [...steps, 'refresh' as const]) {
          if (s !== 'refresh' && 'snapshot' in s) at.snapshot(s.snapshot);
          else if (s !== 'refresh') at.change(s);
          else {
            const before = new Map(told.groups);
            const { named, any, whole: snapshot } = at.published();
            const incremental = await regroup(told, at.index);
            const whole = await regroup(full, at.index);
            const fresh = new RotationGroups();
            await regroup(fresh, at.index);
            expect(idsOf(told.groups)).toEqual(idsOf(fresh.groups));
            expect(idsOf(told.groups)).toEqual(idsOf(full.groups));
            expect(incremental.changes).toEqual(whole.changes);
            // Only the changes were regrouped: every other group is the array it was.
            expect(incremental.how).toBe(snapshot ? 'all' : any ? 'some' : 'none');
            if (!snapshot) for (const [c, g] of told.groups) if (!named.has(c)) expect(g).toBe(before.get(c));
          }
        }
      }),
      { numRuns: 300 },
    );
  });

  it('keep a campaign in its place while it stays, and put one that joins at the end', async () => {
    const state = stateOf({
      rotations: ['optimize', 'optimize', 'optimize'],
      creatives: [1, 1, 2, 2, 3, 3].map((campaign) => ({ campaign, status: 'approved' })),
    });
    const groups = new RotationGroups();
    let index = buildIndex(state, '1-0');
    groups.indexChanged(index, FULL_DELTA);
    await regroup(groups, index);
    expect([...groups.groups.keys()]).toEqual([1, 2, 3]);
    const apply = (...changes: ConfigChange[]) => {
      const next = updateIndex(index, state, changes, '2-0');
      index = next.index;
      groups.indexChanged(index, next.delta);
    };
    // Campaign 1 gains a creative, 2 leaves (its rotation becomes even).
    apply({ kind: 'creative', id: 7, op: 'put', value: creativeFixture({ id: 7, campaign_id: 1 }) });
    apply({ kind: 'campaign', id: 2, op: 'put', value: campaignFixture({ id: 2, rotation: 'even' }) });
    let regrouped = await regroup(groups, index);
    expect(regrouped.how).toBe('some');
    expect([...groups.groups.keys()]).toEqual([1, 3]);
    expect(regrouped.changes).toEqual(
      new Map([
        [
          1,
          [
            [1, 2],
            [1, 2, 7],
          ],
        ],
        [2, [[3, 4], []]],
      ]),
    );
    // 4 joins, then 2 comes back: both after those that stayed.
    apply(
      { kind: 'campaign', id: 4, op: 'put', value: campaignFixture({ id: 4 }) },
      { kind: 'creative', id: 9, op: 'put', value: creativeFixture({ id: 9, campaign_id: 4 }) },
      { kind: 'creative', id: 8, op: 'put', value: creativeFixture({ id: 8, campaign_id: 4 }) },
    );
    apply({ kind: 'campaign', id: 2, op: 'put', value: campaignFixture({ id: 2, rotation: 'optimize' }) });
    regrouped = await regroup(groups, index);
    expect([...groups.groups.keys()]).toEqual([1, 3, 4, 2]);
    expect(regrouped.changes).toEqual(
      new Map([
        [4, [[], [8, 9]]],
        [2, [[], [3, 4]]],
      ]),
    );
    // A campaign gone from the configuration leaves, though its creatives are still there.
    apply({ kind: 'campaign', id: 3, op: 'del' });
    regrouped = await regroup(groups, index);
    expect([...groups.groups.keys()]).toEqual([1, 4, 2]);
    expect(regrouped.changes).toEqual(new Map([[3, [[5, 6], []]]]));
  });
});
