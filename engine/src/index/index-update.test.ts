import type { Creative, StoredCampaign } from '@adnet/schemas/api';
import type { StoredDeal } from '@adnet/schemas/deals';
import type { DemandPartner } from '@adnet/schemas/demand';
import type { StoredSite, StoredZone } from '@adnet/schemas/publisher';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Candidate } from './candidate.ts';
import { buildIndex, campaignCandidates } from './engine-index.ts';
import type { ConfigState, EngineIndex } from './engine-index.ts';
import { campaignFixture, creativeFixture } from '../../test/fixtures/index-fixtures.ts';
import { updateIndex } from './index-update.ts';
import type { ConfigChange } from './index-update.ts';
import { CONFIG_KINDS } from '@adnet/schemas/changes';
import type { StoredAudience } from '@adnet/schemas/audiences';
import type { ConfigKind } from '@adnet/schemas/changes';
import { isDeepStrictEqual } from 'node:util';
import { snapshotChanges } from '../sync/snapshot-diff.ts';

// The main proof of the incremental update: for random configurations and random change sequences, the
// index built change by change equals the one buildIndex makes from the final configuration (the same
// candidates in the same order in every list, the same zones, deals, partners), and no published index
// changes afterwards. Few ids, few countries and few bids, so changes collide: a creative moving between
// campaigns, a campaign paused and resumed, equal ranks broken by ids, a list emptied and refilled.

const CAMPAIGNS = 8;
const CREATIVES = 24;
const GEOS = ['DEU', 'FRA', 'USA'];

const campaign = (id: number) =>
  fc
    .record({
      status: fc.constantFrom('active', 'active', 'active', 'paused'),
      bid: fc.constantFrom(100_000, 150_000, 200_000),
      bidType: fc.constantFrom('cpm', 'cpc'),
      geos: fc.subarray(GEOS),
      // A country named twice (the schema does not forbid it): the same candidate twice in one list.
      twice: fc.boolean(),
      adjust: fc.option(
        fc.array(
          fc.oneof(
            fc.record({ country: fc.constantFrom(...GEOS), multiplier: fc.constantFrom(0.5, 1.5, 2) }),
            fc.record({ zone: fc.constantFrom('z1', 'z2'), multiplier: fc.constantFrom(0.5, 3) }),
          ),
          { minLength: 1, maxLength: 3 },
        ),
      ),
      languages: fc.subarray(['en', 'de']),
      pacing: fc.constantFrom('even', 'asap'),
      target: fc.constantFrom(null, null, 1_000),
      // Opted in: its creatives are in the interstitial slot's lists too, added and taken with the others.
      interstitial: fc.boolean(),
    })
    .map((r): StoredCampaign =>
      campaignFixture({
        id,
        advertiser_id: 1 + (id % 3),
        status: r.status as StoredCampaign['status'],
        bid_type: r.bidType,
        bid_micro_cents: r.bid,
        geo_include: r.twice && r.geos.length > 0 ? [...r.geos, r.geos[0] as string] : r.geos,
        languages: r.languages,
        pacing: r.pacing,
        target_cpa_cents: r.target,
        ...(r.interstitial ? { interstitial: true } : {}),
        ...(r.adjust ? { bid_adjustments: r.adjust } : {}),
      }),
    );

const creative = (id: number) =>
  fc
    .record({
      campaign: fc.integer({ min: 1, max: CAMPAIGNS }),
      status: fc.constantFrom('approved', 'approved', 'pending'),
      size: fc.constantFrom([300, 250], [728, 90]),
      native: fc.boolean(),
      unsafe: fc.boolean().map((b) => b && id % 5 === 0),
      weight: fc.integer({ min: 0, max: 100 }),
    })
    .map((r): Creative =>
      creativeFixture({
        id,
        campaign_id: r.campaign,
        status: r.status as Creative['status'],
        format: r.native ? 'native' : 'banner',
        image_width: r.size[0] ?? null,
        image_height: r.size[1] ?? null,
        landing_url: r.unsafe ? 'javascript:alert(1)' : `https://shop${id % 3}.example.com/?c={click_id}`,
        weight: r.weight,
      }),
    );

const site = (id: number) =>
  fc.record({ status: fc.constantFrom('approved', 'pending'), floor: fc.option(fc.constantFrom(1_000, 5_000)) }).map(
    (r) =>
      ({
        id,
        domain: `site${id}.example`,
        status: r.status,
        floor_cpm_micro_cents: r.floor,
      }) as unknown as StoredSite,
  );

const zone = (id: number) =>
  fc
    .record({
      site: fc.integer({ min: 1, max: 3 }),
      status: fc.constantFrom('active', 'paused'),
      floor: fc.option(fc.constant(2_000)),
    })
    .map(
      (r) =>
        ({
          id,
          subid: `z${id}`,
          site_id: r.site,
          status: r.status,
          format: 'banner',
          floor_cpm_micro_cents: r.floor,
        }) as unknown as StoredZone,
    );

const deal = (id: number) =>
  fc
    .record({
      campaigns: fc.subarray([1, 2, 3, 4, 5, 6, 7, 8]),
      partners: fc.subarray([1, 2]),
      floor: fc.constantFrom(0, 50_000),
    })
    .map((r): StoredDeal => ({
      key: id,
      id: `d${id}`,
      floor_micro_cents: r.floor,
      partner_ids: r.partners,
      campaign_ids: r.campaigns,
      created_at: '',
      updated_at: '',
    }));

const partner = (id: number) =>
  fc.constantFrom('active', 'disabled').map((status) => ({
    id,
    name: `p${id}`,
    allowed_ips: [`192.0.2.${id}`],
    billing_notice: 'nurl',
    qps_limit: 10,
    status,
    created_at: '',
    updated_at: '',
  }));

const demandPartner = (id: number) =>
  fc.constantFrom('active', 'paused').map((status) => ({ id, status }) as unknown as DemandPartner);

const audience = (id: number) =>
  fc
    .record({ source: fc.constantFrom('pixel', 'clicked', 'viewed'), campaigns: fc.subarray([1, 2, 3]) })
    .map((r): StoredAudience => ({
      id,
      advertiser_id: 1,
      name: `a${id}`,
      source: r.source,
      campaign_ids: r.source === 'pixel' ? [] : r.campaigns,
      lifetime_days: id,
      pixel_token: r.source === 'pixel' ? `t${id}` : null,
      created_at: '',
    }));

const sourceList = () =>
  fc
    .record({
      mode: fc.constantFrom('include', 'exclude'),
      zones: fc.subarray(['z1', 'z2', 'z3']),
      sites: fc.subarray([1, 2]),
    })
    .map((r) => r);

const zoneBids = () =>
  fc
    .subarray(['z1', 'z2', 'z3'])
    .chain((subids) =>
      fc.tuple(
        ...subids.map((subid, i) =>
          fc.constantFrom<'excluded' | 'optimised'>('excluded', 'optimised').map((state) => ({
            zone_id: i + 1,
            subid,
            state,
            bid_micro_cents: state === 'excluded' ? 0 : 90_000,
            reason: '',
          })),
        ),
      ),
    )
    .map((zones) => ({ zones }));

type Kind = ConfigChange['kind'];
const VALUES: Record<Kind, { max: number; value: (id: number) => fc.Arbitrary<unknown> }> = {
  campaign: { max: CAMPAIGNS, value: campaign },
  creative: { max: CREATIVES, value: creative },
  site: { max: 3, value: site },
  zone: { max: 4, value: zone },
  deal: { max: 3, value: deal },
  partner: { max: 2, value: partner },
  demand_partner: { max: 2, value: demandPartner },
  campaign_sources: { max: CAMPAIGNS, value: () => sourceList() },
  campaign_zone_bids: { max: CAMPAIGNS, value: () => zoneBids() },
  audience: { max: 3, value: audience },
};
const KINDS = Object.keys(VALUES) as Kind[];

const change: fc.Arbitrary<ConfigChange> = fc
  .record({
    kind: fc.constantFrom(...KINDS, 'campaign', 'creative', 'creative'),
    id: fc.integer({ min: 1, max: CREATIVES }),
    del: fc.boolean(),
  })
  .chain(({ kind, id, del }) => {
    const k = kind;
    const own = 1 + ((id - 1) % VALUES[k].max);
    // Deletes are rarer than puts, so the world does not empty out.
    return del && own % 4 === 0
      ? fc.constant<ConfigChange>({ kind: k, id: own, op: 'del' })
      : VALUES[k].value(own).map((value): ConfigChange => ({ kind: k, id: own, op: 'put', value }));
  });

/** A configuration to start from: every kind filled by puts, some kinds absent as in logs written before them. */
const world = fc.array(change, { minLength: 0, maxLength: 60 }).map((puts) => {
  const state: ConfigState = {
    campaign: new Map(),
    creative: new Map(),
    partner: new Map(),
    site: new Map(),
    zone: new Map(),
    deal: new Map(),
  };
  for (const c of puts) {
    const map = (state[c.kind] ??= new Map());
    if (c.op === 'put') map.set(c.id, c.value);
  }
  return state;
});

const cloneState = (s: ConfigState): ConfigState =>
  Object.fromEntries(Object.entries(s).map(([k, m]) => [k, new Map(m)])) as ConfigState;

/** What the hot path can observe, in a comparable form: the candidates themselves, each list in order. */
function view(index: EngineIndex) {
  const lists = (m: ReadonlyMap<string, readonly Candidate[]>) => [...m].sort(([a], [b]) => a.localeCompare(b));
  return {
    seq: index.seq,
    slots: lists(index.slots),
    exchangeSlots: lists(index.exchangeSlots),
    sameExchangeArray: [...index.slots]
      .filter(([k, l]) => index.exchangeSlots.get(k) === l)
      .map(([k]) => k)
      .sort(),
    partners: index.partners.map((p) => p.partner),
    demandPartners: index.demandPartners,
    campaigns: index.campaigns,
    candidateCount: index.candidateCount,
    zones: [...index.zones].sort(([a], [b]) => a.localeCompare(b)),
    sites: index.sites,
    creatives: index.creatives,
    paces: [...index.paces.keys()].sort((a, b) => a - b),
    siteControls: [...index.siteControls].sort(([a], [b]) => a - b),
    deals: [...index.deals]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([id, d]) => ({
        id,
        floor: d.floorMicroCents,
        partners: d.partners,
        campaigns: d.campaigns,
        slots: lists(d.slots),
        exchangeSlots: lists(d.exchangeSlots),
      })),
    audiences: {
      viewed: byCampaign(index.audiences.viewed),
      clicked: byCampaign(index.audiences.clicked),
      watched: [...index.audiences.watched].sort((a, b) => a - b),
      pixels: [...index.audiences.pixels].sort(([a], [b]) => a.localeCompare(b)),
    },
  };
}

/** An audience map in an order that does not depend on how the configuration arrived. */
const byCampaign = (m: ReadonlyMap<number, readonly { id: number; lifetimeMs: number }[]>) =>
  [...m].map(([c, refs]) => [c, [...refs].sort((a, b) => a.id - b.id)] as const).sort(([a], [b]) => a - b);

/** The parts of an index no later change may alter (the raw configuration maps are the mirror's, shared). */
const frozen = (index: EngineIndex) => {
  const v = view(index);
  return {
    slots: v.slots.map(([k, l]) => [k, [...l]]),
    exchangeSlots: v.exchangeSlots.map(([k, l]) => [k, [...l]]),
    zones: v.zones,
    deals: v.deals,
    partners: v.partners,
  };
};

describe('the incremental index update', () => {
  it('equals a full rebuild over the final configuration, for random change sequences in random groups', () => {
    fc.assert(
      fc.property(
        world,
        fc.array(change, { maxLength: 80 }),
        fc.array(fc.integer({ min: 1, max: 12 }), { minLength: 1, maxLength: 10 }),
        (start, changes, groups) => {
          const state = cloneState(start);
          let index = buildIndex(state, '1-0');
          const published: { index: EngineIndex; before: ReturnType<typeof frozen> }[] = [];
          for (let at = 0, g = 0; at < changes.length; g++) {
            const n = groups[g % groups.length] as number;
            published.push({ index, before: frozen(index) });
            const next = updateIndex(index, state, changes.slice(at, at + n), `${at + n + 1}-0`);
            expect(next.delta.full).toBe(false);
            index = next.index;
            at += n;
          }
          expect(view(index)).toEqual(view(buildIndex(cloneState(state), index.seq)));
          for (const p of published) expect(frozen(p.index)).toEqual(p.before);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('applies a fresh snapshot as its difference from the mirror, equal to a full build over the snapshot', async () => {
    await fc.assert(
      fc.asyncProperty(world, world, fc.boolean(), async (start, fresh, copies) => {
        const state = cloneState(start);
        const index = buildIndex(state, '1-0');
        // Decoded anew, as a snapshot is: equal values are other objects (copies), or the same ones (none).
        const entities = Object.fromEntries(
          CONFIG_KINDS.map((k) => [
            k,
            new Map([...(fresh[k] ?? new Map())].map(([id, v]) => [id, copies ? structuredClone(v) : v])),
          ]),
        ) as Record<ConfigKind, Map<number, unknown>>;
        const changes = await snapshotChanges(state, entities, 1);
        if (!changes) throw new Error('a share of 1 always answers the changes');
        for (const c of changes)
          expect(c.op === 'del' || !isDeepStrictEqual(start[c.kind]?.get(c.id), c.value)).toBe(true);
        const next = updateIndex(index, state, changes, '2-0');
        expect(next.delta.full).toBe(false);
        expect(view(next.index)).toEqual(view(buildIndex(cloneState(entities as ConfigState), '2-0')));
      }),
      { numRuns: 200 },
    );
    // Past the share, a full build.
    const state: ConfigState = {
      campaign: new Map([[1, campaignFixture({ id: 1 })]]),
      creative: new Map(),
      partner: new Map(),
      site: new Map(),
      zone: new Map(),
      deal: new Map(),
    };
    const empty = Object.fromEntries(CONFIG_KINDS.map((k) => [k, new Map()])) as Record<
      ConfigKind,
      Map<number, unknown>
    >;
    expect(await snapshotChanges(state, empty, 0.5)).toBeUndefined();
  });

  it('leaves every list the change does not touch the same array, and keeps a changed campaign pace handle', () => {
    const state: ConfigState = {
      campaign: new Map([1, 2].map((id) => [id, campaignFixture({ id, geo_include: id === 1 ? ['DEU'] : [] })])),
      creative: new Map([
        [1, creativeFixture({ id: 1, campaign_id: 1 })],
        [2, creativeFixture({ id: 2, campaign_id: 2, format: 'native' })],
      ]),
      partner: new Map(),
      site: new Map(),
      zone: new Map(),
      deal: new Map(),
    };
    const before = buildIndex(state, '1-0');
    const pace = before.paces.get(1);
    const { index, delta } = updateIndex(
      before,
      state,
      [
        {
          kind: 'campaign',
          id: 1,
          op: 'put',
          value: campaignFixture({ id: 1, geo_include: ['DEU'], bid_micro_cents: 1 }),
        },
      ],
      '2-0',
    );
    expect([...delta.campaigns]).toEqual([1]);
    expect(index.slots.get('native|*')).toBe(before.slots.get('native|*'));
    expect(index.slots.get('banner:300x250|DEU')).not.toBe(before.slots.get('banner:300x250|DEU'));
    expect(index.slots.get('banner:300x250|DEU')?.[0]?.bidMicroCents).toBe(1);
    expect(index.paces.get(1)).toBe(pace);
    expect(campaignCandidates(index, 1)).toHaveLength(1);
    // The older index is no longer the latest: it answers no bookkeeping, and updating from it rebuilds whole.
    expect(campaignCandidates(before, 1)).toHaveLength(0);
    expect(updateIndex(before, state, [], '3-0').delta.full).toBe(true);
  });

  it('inserts by binary search into a long list and merges many changes in one pass, both in rank order', () => {
    const ids = Array.from({ length: 400 }, (_, i) => i + 1);
    const state: ConfigState = {
      campaign: new Map(ids.map((id) => [id, campaignFixture({ id, bid_micro_cents: 1_000 * (1 + (id % 37)) })])),
      creative: new Map(ids.map((id) => [id, creativeFixture({ id, campaign_id: id })])),
      partner: new Map(),
      site: new Map(),
      zone: new Map(),
      deal: new Map(),
    };
    let index = buildIndex(state, '1-0');
    const bump = (id: number, bid: number): ConfigChange => ({
      kind: 'campaign',
      id,
      op: 'put',
      value: campaignFixture({ id, bid_micro_cents: bid }),
    });
    index = updateIndex(index, state, [bump(7, 999_000), bump(8, 1)], '2-0').index;
    expect(view(index)).toEqual(view(buildIndex(cloneState(state), '2-0')));
    expect(index.slots.get('banner:300x250|*')?.[0]?.campaignId).toBe(7);
    index = updateIndex(
      index,
      state,
      ids.slice(0, 100).map((id) => bump(id, 5_000 + id)),
      '3-0',
    ).index;
    expect(view(index)).toEqual(view(buildIndex(cloneState(state), '3-0')));
  });
});
