import { describe, expect, it } from 'vitest';
import type { Candidate } from '../index/candidate.ts';
import { rankCandidates } from '../index/rank.ts';
import { candidateFixture as cand, impFixture } from '../../test/fixtures/auction-fixtures.ts';
import { CANDIDATE_FILTERS as FILTERS } from './filters/index.ts';
import { campaignFixture, creativeFixture } from '../../test/fixtures/index-fixtures.ts';
import { Candidate as CandidateOf, campaignPart, candidateOf } from '../index/candidate.ts';
import type { BudgetGate, CreativePicker } from './ports.ts';
import type { ImpContext } from './request-context.ts';
import { runImpAuction as runRanked } from './run-auction.ts';

// Tests pass one plain list; the index hands the auction ranked lists.
const first: CreativePicker = { pick: (siblings) => siblings[0] as Candidate };
const runImpAuction = (list: Candidate[], c: ImpContext, b: BudgetGate, p = first) =>
  runRanked([rankCandidates([...list])], c, FILTERS, b, p);
const open: BudgetGate = { tryTake: () => true };
const ctx = (over: Partial<ImpContext> = {}): ImpContext => impFixture(over);

describe('runImpAuction', () => {
  it('ranks by eCPM, CPC bids through the CTR prior', () => {
    const cpm = cand({ bid_micro_cents: 200_000 });
    // $0.10 CPC x 0.1% banner CTR x 1000 = $0.10 CPM: loses to $2 CPM.
    const cpc = cand({ bid_type: 'cpc', bid_micro_cents: 10_000 });
    expect(cpc.ecpmMicroCents).toBe(10_000);
    const r = runImpAuction([cpc, cpm], ctx(), open);
    expect(r).toEqual({
      won: true,
      winner: cpm,
      priceMicroCents: 11_000,
      secondMicroCents: 10_000,
      multiplierMilli: 1000,
    });
  });

  it('never prices below the floor, and drops candidates under it', () => {
    const a = cand({ bid_micro_cents: 300_000 });
    const b = cand({ bid_micro_cents: 100_000 });
    const r = runImpAuction([a, b], ctx({ floorMicroCents: 250_000 }), open);
    expect(r).toMatchObject({ won: true, winner: a, priceMicroCents: 250_000 });
    expect(runImpAuction([b], ctx({ floorMicroCents: 250_000 }), open)).toEqual({
      won: false,
      reason: 'below_floor',
    });
  });

  it('walks down the ranking when the best has no budget; no-bid "budget" when none has', () => {
    const rich = cand({ bid_micro_cents: 100_000 });
    const broke = cand({ bid_micro_cents: 500_000 });
    const gate: BudgetGate = { tryTake: (c) => c !== broke };
    expect(runImpAuction([broke, rich], ctx(), gate)).toMatchObject({
      won: true,
      winner: rich,
      priceMicroCents: 1_000,
    });
    expect(runImpAuction([broke], ctx(), { tryTake: () => false })).toEqual({ won: false, reason: 'budget' });
    expect(runImpAuction([], ctx(), open)).toEqual({ won: false, reason: 'no_candidates' });
  });

  it('reports the filter that removed the most candidates', () => {
    const list = [cand({ languages: ['fr'] }), cand({ languages: ['fr'] }), cand({ vertical: 'gambling' })];
    expect(runImpAuction(list, ctx({ bcat: ['IAB9'] }), open)).toEqual({ won: false, reason: 'language' });
  });
});

describe("a campaign's creatives", () => {
  const campaign = campaignFixture({ id: 900, bid_micro_cents: 400_000 });
  const part = campaignPart(campaign, { rate: 1 }, { sourceList: undefined }, undefined);
  const creatives = [1, 2, 3].map((n) => new CandidateOf(part, creativeFixture({ id: 9_000 + n, campaign_id: 900 })));
  const rival = cand({ bid_micro_cents: 100_000 });

  it('are all offered to the rotation, which picks the one that serves, priced against another campaign', () => {
    const offered: number[][] = [];
    const last: CreativePicker = {
      pick: (s) => (offered.push(s.map((c) => c.creativeId)), s[s.length - 1] as Candidate),
    };
    const r = runImpAuction([rival, ...creatives], ctx(), open, last);
    expect(offered).toEqual([[9_001, 9_002, 9_003]]);
    expect(r).toMatchObject({ won: true, winner: creatives[2], secondMicroCents: 100_000, priceMicroCents: 101_000 });
  });

  it('stay together in the ranking even beside a campaign of equal eCPM', () => {
    const twin = candidateOf(
      campaignFixture({ id: 901, bid_micro_cents: 400_000 }),
      creativeFixture({ id: 9_002_5, campaign_id: 901 }),
    );
    const ranked = rankCandidates([twin, ...creatives]);
    expect(ranked.map((c) => c.campaignId)).toEqual([900, 900, 900, 901]);
  });

  it('are skipped together when their campaign has no budget', () => {
    const tried: number[] = [];
    const gate: BudgetGate = { tryTake: (c) => (tried.push(c.campaignId), c.campaignId !== 900) };
    expect(runImpAuction([rival, ...creatives], ctx(), gate)).toMatchObject({ won: true, winner: rival });
    expect(tried).toEqual([900, rival.campaignId]);
  });
});

describe('runImpAuction over several ranked lists', () => {
  it('merges lists best first and stops at the floor', () => {
    const local = rankCandidates([cand({ bid_micro_cents: 300_000 }), cand({ bid_micro_cents: 90_000 })]);
    const any = rankCandidates([cand({ bid_micro_cents: 500_000 }), cand({ bid_micro_cents: 200_000 })]);
    const r = runRanked([local, any], ctx(), FILTERS, open, first);
    expect(r).toMatchObject({ won: true, winner: any[0], secondMicroCents: 300_000, priceMicroCents: 301_000 });
    const seen: number[] = [];
    const spy: BudgetGate = { tryTake: (c) => (seen.push(c.ecpmMicroCents), false) };
    expect(runRanked([local, any], ctx({ floorMicroCents: 150_000 }), FILTERS, spy, first)).toEqual({
      won: false,
      reason: 'budget',
    });
    expect(seen).toEqual([500_000, 300_000, 200_000]);
    expect(runRanked([local, any], ctx({ floorMicroCents: 600_000 }), FILTERS, open, first)).toEqual({
      won: false,
      reason: 'below_floor',
    });
  });
});
