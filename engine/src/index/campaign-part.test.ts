import type { Creative, StoredCampaign } from '@adnet/schemas/api';
import type { SourceList } from '@adnet/schemas/source-lists';
import { getHeapSnapshot } from 'node:v8';
import { describe, expect, it } from 'vitest';
import { campaignPart } from './candidate.ts';
import { buildIndex, campaignCandidates } from './engine-index.ts';
import type { ConfigState } from './engine-index.ts';
import { campaignFixture, creativeFixture } from '../../test/fixtures/index-fixtures.ts';
import { updateIndex } from './index-update.ts';

const list: SourceList = { mode: 'exclude', zones: ['z1'], sites: [7] };
const adjustments = [{ zone: 'z2', multiplier: 2 }];

function state(campaigns: StoredCampaign[], creatives: Creative[], lists = new Map<number, SourceList>()): ConfigState {
  return {
    campaign: new Map(campaigns.map((c) => [c.id, c])),
    creative: new Map(creatives.map((c) => [c.id, c])),
    partner: new Map(),
    site: new Map(),
    zone: new Map(),
    deal: new Map(),
    campaign_sources: lists,
  };
}

describe('campaignPart', () => {
  it('reuses the part before while made from the same objects, and its compiled lists while those are', () => {
    const campaign = campaignFixture({ bid_adjustments: adjustments });
    const pace = { rate: 1 };
    const first = campaignPart(campaign, pace, { sourceList: list }, undefined);
    expect(campaignPart(campaign, pace, { sourceList: list }, first)).toBe(first);
    const changed = campaignPart({ ...campaign, bid_micro_cents: 9 }, pace, { sourceList: list }, first);
    expect(changed).not.toBe(first);
    expect(changed.bidMicroCents).toBe(9);
    expect(changed.sources).toBe(first.sources);
    expect(changed.adjust).toBe(first.adjust);
    const relisted = campaignPart(campaign, pace, { sourceList: { ...list, zones: ['z3'] } }, first);
    expect(relisted.sources).not.toBe(first.sources);
    expect(relisted.sources?.zones.has('z3')).toBe(true);
    expect(campaignPart(campaign, { rate: 1 }, { sourceList: list }, first)).not.toBe(first);
  });

  it("the index keeps a campaign's part through a change to one of its creatives and through a rebuild", () => {
    const s = state(
      [campaignFixture({ id: 1, bid_adjustments: adjustments })],
      [creativeFixture({ id: 1, campaign_id: 1 }), creativeFixture({ id: 2, campaign_id: 1 })],
      new Map([[1, list]]),
    );
    const index = buildIndex(s, '1-0');
    const part = campaignCandidates(index, 1)[0]?.part;
    expect(part?.sources?.zones.has('z1')).toBe(true);
    const next = updateIndex(
      index,
      s,
      [{ kind: 'creative', id: 2, op: 'put', value: creativeFixture({ id: 2, campaign_id: 1, weight: 5 }) }],
      '2-0',
    ).index;
    expect(campaignCandidates(next, 1).map((c) => c.part)).toEqual([part, part]);
    // A snapshot's rebuild: new campaign objects, the same list object (keepUnchangedLists): the list is not compiled again.
    const rebuilt = buildIndex(
      state(
        [{ ...(s.campaign.get(1) as StoredCampaign) }],
        [...(s.creative as Map<number, Creative>).values()],
        new Map([[1, list]]),
      ),
      '3-0',
      next,
    );
    expect(campaignCandidates(rebuilt, 1)[0]?.part.sources).toBe(part?.sources);
  });
});

/** Entries of every WeakMap in this process: a heap snapshot's strings name each entry's key -> value edge. */
async function weakMapEntries(): Promise<number> {
  const chunks: string[] = [];
  for await (const chunk of getHeapSnapshot()) chunks.push(String(chunk));
  return chunks.join('').split('pair in WeakMap').length - 1;
}

describe('the index', () => {
  it('holds no WeakMap entry per campaign (each is an ephemeron in the atomic pause of every full collection)', async () => {
    const n = 2_000;
    const campaigns = Array.from({ length: n }, (_, i) =>
      campaignFixture({ id: i + 1, bid_adjustments: adjustments, geo_include: i % 2 ? ['US', 'DE'] : [] }),
    );
    const creatives = campaigns.map((c) => creativeFixture({ id: c.id, campaign_id: c.id }));
    const lists = new Map(campaigns.map((c) => [c.id, { ...list }]));
    const before = await weakMapEntries();
    const index = buildIndex(state(campaigns, creatives, lists), '1-0');
    const after = await weakMapEntries();
    expect(index.candidateCount).toBe(n);
    // Two strings per entry; a few for whatever else ran meanwhile.
    expect(after - before).toBeLessThan(n / 10);
  }, 60_000);
});
