import type { StoredZone } from '@adnet/schemas/publisher';
import { adjustedMicroCents } from '@adnet/schemas/source-lists';
import type { BidAdjustment } from '@adnet/schemas/source-lists';
import { describe, expect, it } from 'vitest';
import type { Candidate } from '../index/candidate.ts';
import type { ZoneEntry } from '../index/engine-index.ts';
import { NO_CONTROLS } from '../index/inventory-controls.ts';
import { rankCandidates } from '../index/rank.ts';
import { buildIndex, candidateListsFor } from '../index/engine-index.ts';
import { campaignFixture, creativeFixture } from '../../test/fixtures/index-fixtures.ts';
import type { Creative, StoredCampaign } from '@adnet/schemas/api';
import { compileAdjustments, multiplierFor } from '../index/source-controls.ts';
import type { CandidateFilter } from './filter.ts';
import { candidateFixture, impFixture } from '../../test/fixtures/auction-fixtures.ts';
import type { BudgetGate, CreativePicker } from './ports.ts';
import type { ImpContext } from './request-context.ts';
import { runImpAuction } from './run-auction.ts';

// Bid adjustments: the multiplier math, and the ranked walk re-scoring adjusted candidates so that they
// come out in true score order (checked against a brute-force sort on random worlds).

const first: CreativePicker = { pick: (siblings) => siblings[0] as Candidate };
const open: BudgetGate = { tryTake: () => true };
const zone = (subid: string): ZoneEntry => ({
  zone: { subid } as StoredZone,
  serving: true,
  controls: NO_CONTROLS,
  source: '',
});
const on = (subid: string | undefined, siteId: number, country: string | undefined, floorMicroCents = 0): ImpContext =>
  impFixture({
    zone: subid ? zone(subid) : undefined,
    inventory: { publisherId: 1, siteId, zoneId: subid ? 1 : 0, source: '' },
    country,
    floorMicroCents,
  });
const cpm = (bid: number, bid_adjustments: BidAdjustment[] = [], creative = {}) =>
  candidateFixture({ bid_micro_cents: bid, bid_adjustments }, creative);
const run = (lists: Candidate[][], imp: ImpContext, budget = open, filters: CandidateFilter[] = []) =>
  runImpAuction(
    lists.map((l) => rankCandidates([...l])),
    imp,
    filters,
    budget,
    first,
  );

/** The order the walk hands candidates out in (a filter that records and rejects every one). */
function walkOrder(lists: Candidate[][], imp: ImpContext, exchange: boolean): [number, number][] {
  const seen: [number, number][] = [];
  const record: CandidateFilter = {
    name: 'pacing',
    scope: 'candidate',
    reject: (c) => (seen.push([c.campaignId, c.creativeId]), true),
  };
  runImpAuction(lists, imp, [record], open, first, exchange);
  return seen;
}

/** Every candidate by its true score on `imp`, brute force. */
function trueOrder(lists: Candidate[][], imp: ImpContext): [number, number][] {
  const score = (c: Candidate) =>
    adjustedMicroCents(
      c.ecpmMicroCents,
      c.adjust ? multiplierFor(c.adjust, imp.zone?.zone.subid, imp.inventory.siteId, imp.country) : 1000,
    );
  return lists
    .flat()
    .sort((a, b) => score(b) - score(a) || a.campaignId - b.campaignId || a.creativeId - b.creativeId)
    .map((c) => [c.campaignId, c.creativeId]);
}

describe('bid adjustment math', () => {
  it('most specific wins: zone, then site, then country, else x1', () => {
    const a = compileAdjustments([
      { country: 'de', multiplier: 1.5 },
      { site: 7, multiplier: 0.5 },
      { zone: 'z1', multiplier: 2 },
    ]);
    if (!a) throw new Error('compiled to nothing');
    expect(multiplierFor(a, 'z1', 7, 'de')).toBe(2000);
    expect(multiplierFor(a, 'z2', 7, 'de')).toBe(500);
    expect(multiplierFor(a, 'z2', 8, 'de')).toBe(1500);
    expect(multiplierFor(a, undefined, 0, 'us')).toBe(1000);
    expect(a.maxMilli).toBe(2000);
  });
  it('a x1 zone entry overrides its site and country; an all-below-x1 list bounds the rank at x1', () => {
    const a = compileAdjustments([
      { country: 'de', multiplier: 0.3 },
      { zone: 'z1', multiplier: 1 },
    ]);
    expect(a && multiplierFor(a, 'z1', 0, 'de')).toBe(1000);
    expect(a?.maxMilli).toBe(1000);
  });
  it('rounds the adjusted price down, in integer micro-cents, and leaves x1 alone', () => {
    expect(adjustedMicroCents(150_001, 1500)).toBe(225_001);
    expect(adjustedMicroCents(3, 333)).toBe(0);
    expect(adjustedMicroCents(123_457, 1000)).toBe(123_457);
    // The largest bid ($1000, 1e8 micro-cents) times x10 stays an exact integer.
    expect(adjustedMicroCents(100_000_000, 10_000)).toBe(1_000_000_000);
  });
  it('an empty list adjusts nothing', () => {
    expect(compileAdjustments([])).toBeNull();
  });
});

describe('the ranked walk under bid adjustments', () => {
  it('a x2 zone adjustment wins an auction it would otherwise lose, and pays the second price', () => {
    const boosted = cpm(100_000, [{ zone: 'hot', multiplier: 2 }]);
    const rival = cpm(150_000);
    expect(run([[boosted, rival]], on('cold', 1, 'us'))).toMatchObject({
      won: true,
      winner: rival,
      priceMicroCents: 101_000,
    });
    expect(run([[boosted, rival]], on('hot', 1, 'us'))).toEqual({
      won: true,
      winner: boosted,
      priceMicroCents: 151_000,
      secondMicroCents: 150_000,
      multiplierMilli: 2000,
    });
  });
  it('a x0.5 adjustment loses where it would have won, and sets the price as the runner-up at its adjusted eCPM', () => {
    const damped = cpm(300_000, [{ site: 4, multiplier: 0.5 }]);
    const rival = cpm(200_000);
    expect(run([[damped, rival]], on('z', 4, 'us'))).toMatchObject({
      won: true,
      winner: rival,
      priceMicroCents: 151_000,
      secondMicroCents: 150_000,
    });
  });
  it('the floor applies to the adjusted eCPM', () => {
    const c = cpm(100_000, [{ country: 'de', multiplier: 3 }]);
    expect(run([[c]], on(undefined, 0, 'de', 250_000))).toMatchObject({
      won: true,
      winner: c,
      priceMicroCents: 250_000,
    });
    expect(run([[c]], on(undefined, 0, 'us', 250_000))).toEqual({ won: false, reason: 'below_floor' });
  });
  it('the budget is asked for the adjusted price', () => {
    const asked: number[] = [];
    const c = cpm(100_000, [{ zone: 'hot', multiplier: 2 }]);
    const d = cpm(150_000);
    run([[c, d]], on('hot', 1, 'us'), { tryTake: (_c, price) => (asked.push(price), true) });
    expect(asked).toEqual([151_000]);
  });
  it('keeps a campaign’s creatives together when re-scored', () => {
    const a1 = cpm(100_000, [{ zone: 'hot', multiplier: 2 }]);
    const a2 = candidateFixture(
      { id: a1.campaignId, bid_micro_cents: 100_000, bid_adjustments: [{ zone: 'hot', multiplier: 2 }] },
      { id: a1.creativeId + 10_000 },
    );
    const b = cpm(200_000);
    const seen: Candidate[] = [];
    const record: CandidateFilter = { name: 'pacing', scope: 'candidate', reject: (c) => (seen.push(c), true) };
    run([[a1, b], [a2]], on('hot', 1, 'us'), open, [record]);
    // a (200 000 after x2) ties with b: the lower campaign id first, its creatives side by side.
    expect(seen.map((c) => c.campaignId)).toEqual([a1.campaignId, a1.campaignId, b.campaignId]);
  });

  it('hands candidates out in true score order (random worlds against a brute-force sort)', () => {
    let seed = 42;
    const rnd = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)] as T;
    for (let world = 0; world < 200; world++) {
      const lists: Candidate[][] = [[], [], []];
      for (let i = 0; i < 15; i++) {
        const adj: BidAdjustment[] = [];
        if (rnd() < 0.5) adj.push({ zone: pick(['z1', 'z2']), multiplier: pick([0.1, 0.5, 1, 1.7, 2, 10]) });
        if (rnd() < 0.3) adj.push({ site: pick([1, 2]), multiplier: pick([0.2, 3]) });
        if (rnd() < 0.3) adj.push({ country: pick(['us', 'de']), multiplier: pick([0.4, 1.2]) });
        pick(lists).push(cpm(Math.floor(rnd() * 20) * 10_000 + 1_000, adj));
      }
      const imp = on(pick(['z1', 'z2', undefined]), pick([0, 1, 2]), pick(['us', 'de']));
      const ranked = lists.map((l) => rankCandidates([...l]));
      expect(walkOrder(ranked, imp, false)).toEqual(trueOrder(ranked, imp));
    }
  });

  it('through the index, in every country list, for zone traffic and for exchange traffic (its own order)', () => {
    let seed = 7;
    const rnd = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)] as T;
    for (let world = 0; world < 100; world++) {
      const campaigns = new Map<number, StoredCampaign>();
      const creatives = new Map<number, Creative>();
      for (let id = 1; id <= 20; id++) {
        const adj: BidAdjustment[] = [];
        if (rnd() < 0.4) adj.push({ zone: pick(['z1', 'z2']), multiplier: pick([0.1, 0.5, 1, 2, 10]) });
        if (rnd() < 0.3) adj.push({ site: pick([1, 2]), multiplier: pick([0.2, 3]) });
        for (const country of ['us', 'de', 'fr'])
          if (rnd() < 0.3) adj.push({ country, multiplier: pick([0.4, 1, 1.2, 4]) });
        const geo_include = pick([[], ['us'], ['de'], ['us', 'de'], ['us', 'fr']]);
        campaigns.set(
          id,
          campaignFixture({
            id,
            bid_micro_cents: 1_000 + Math.floor(rnd() * 20) * 10_000,
            geo_include,
            bid_adjustments: adj,
          }),
        );
        for (let k = 0; k < 1 + Math.floor(rnd() * 2); k++) {
          const cid = id * 10 + k;
          creatives.set(cid, creativeFixture({ id: cid, campaign_id: id }));
        }
      }
      const index = buildIndex(
        {
          campaign: campaigns,
          creative: creatives,
          partner: new Map(),
          site: new Map(),
          zone: new Map(),
          deal: new Map(),
        },
        '1-0',
      );
      const country = pick(['us', 'de', 'fr', 'jp']);
      const exchange = rnd() < 0.5;
      const imp = exchange ? on(undefined, 0, country) : on(pick(['z1', 'z2']), pick([1, 2, 3]), country);
      const lists: Candidate[][] = [];
      candidateListsFor(index, 'banner:300x250', country, lists, exchange);
      const expected = trueOrder(lists, imp);
      expect(walkOrder(lists, imp, exchange), `world ${world}`).toEqual(expected);
      expect(expected.length).toBe(
        [...creatives.values()].filter((c) => {
          const g = campaigns.get(c.campaign_id)?.geo_include ?? [];
          return g.length === 0 || g.includes(country);
        }).length,
      );
    }
  });
});
