import { describe, expect, it } from 'vitest';
import type { StoredZone } from '@adnet/schemas/publisher';
import type { ZoneBids } from '@adnet/schemas/target-cpa';
import { campaignPart } from '../../index/candidate.ts';
import { Candidate } from '../../index/candidate.ts';
import type { ZoneEntry } from '../../index/engine-index.ts';
import { NO_CONTROLS } from '../../index/inventory-controls.ts';
import { rankCandidates } from '../../index/rank.ts';
import { campaignFixture, creativeFixture } from '../../../test/fixtures/index-fixtures.ts';
import { candidateFixture, impFixture } from '../../../test/fixtures/auction-fixtures.ts';
import { runImpAuction } from '../run-auction.ts';
import { cpaExcludedFilter } from './cpa-excluded.ts';
import { CANDIDATE_FILTERS } from './index.ts';

const on = (subid?: string) =>
  impFixture({
    zone: subid
      ? ({ zone: { subid } as StoredZone, serving: true, controls: NO_CONTROLS, source: '' } satisfies ZoneEntry)
      : undefined,
    inventory: { publisherId: 1, siteId: 1, zoneId: subid ? 1 : 0, source: '' },
  });

const bids: ZoneBids = {
  zones: [
    { zone_id: 1, subid: 'dead', state: 'excluded', bid_micro_cents: 0, reason: '' },
    { zone_id: 2, subid: 'good', state: 'optimised', bid_micro_cents: 120_000, reason: '' },
  ],
};
/** A $2.00 CPM campaign with a target CPA and the decisions above, through the index's own compile step. */
function cpaCandidate(over: { target_cpa_cents?: number | null; bid_micro_cents?: number } = {}): Candidate {
  const campaign = campaignFixture({ id: 77, bid_micro_cents: 200_000, target_cpa_cents: 1_000, ...over });
  const part = campaignPart(campaign, { rate: 1 }, { sourceList: undefined, zoneBids: bids }, undefined);
  return new Candidate(part, creativeFixture({ id: 770, campaign_id: 77 }));
}
const open = { tryTake: () => true };
const first = { pick: (s: readonly Candidate[]) => s[0] as Candidate };

describe('target CPA in the auction', () => {
  it('drops the campaign on an excluded zone only, with reason cpa_excluded', () => {
    const c = cpaCandidate();
    expect(cpaExcludedFilter.reject(c, on('dead'))).toBe(true);
    expect(cpaExcludedFilter.reject(c, on('good'))).toBe(false);
    expect(cpaExcludedFilter.reject(c, on('new'))).toBe(false);
    expect(cpaExcludedFilter.reject(c, on())).toBe(false);
    expect(runImpAuction([[c]], on('dead'), CANDIDATE_FILTERS, open, first)).toEqual({
      won: false,
      reason: 'cpa_excluded',
    });
  });

  it("bids the optimised zone's bid there and the campaign's bid elsewhere", () => {
    const c = cpaCandidate();
    const rival = candidateFixture({ bid_micro_cents: 150_000 });
    const lists = [rankCandidates([c, rival])];
    // On `good` the campaign bids $1.20 and loses to the $1.50 rival; on a testing zone its $2.00 wins.
    expect(runImpAuction(lists, on('good'), CANDIDATE_FILTERS, open, first)).toMatchObject({ winner: rival });
    expect(runImpAuction(lists, on('new'), CANDIDATE_FILTERS, open, first)).toMatchObject({
      winner: c,
      priceMicroCents: 151_000,
    });
    const alone = runImpAuction([[c]], on('good'), CANDIDATE_FILTERS, open, first);
    expect(alone).toMatchObject({ won: true, multiplierMilli: 600 });
  });

  it('never bids above the campaign bid, and a campaign without a target ignores stale decisions', () => {
    // The campaign's bid was lowered below the zone's since the controller's pass: the zone gets the campaign's.
    const lowered = cpaCandidate({ bid_micro_cents: 100_000 });
    expect(runImpAuction([[lowered]], on('good'), CANDIDATE_FILTERS, open, first)).toMatchObject({
      multiplierMilli: 1000,
    });
    const off = cpaCandidate({ target_cpa_cents: null });
    expect(off.cpaExcluded).toBeNull();
    expect(off.adjust).toBeNull();
    expect(runImpAuction([[off]], on('dead'), CANDIDATE_FILTERS, open, first)).toMatchObject({ won: true });
  });
});
