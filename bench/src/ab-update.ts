// `AB_CLOCK=cpu node --import tsx bench/src/ab-update.ts <before-checkout> <after-checkout> [campaigns]`: one
// campaign change applied to the index (engine/src/index/index-update.ts) by two trees in one process, each over
// its own copy of the same configuration (bench world, 10 000 campaigns by default), blocks alternated.
import type * as EngineIndex from '@adnet/engine/engine-index';
import type * as IndexUpdate from '@adnet/engine/index-update';
import type { StoredCampaign } from '@adnet/schemas/api';
import { pack, unpack } from '@adnet/schemas/wire/msgpack';
import { alternate, clockUs } from './ab-trees.ts';
import { generateWorld } from './world.ts';

const campaigns = Number(process.argv[4] ?? 10_000);
const PER_BLOCK = 300;
const world = generateWorld({ campaigns, creativesPerCampaign: 3, advertisers: 500 });
const blobs = { campaign: world.campaigns.map((c) => pack(c)), creative: world.creatives.map((c) => pack(c)) };

async function timer(root: string) {
  const build = (await import(`${root}/engine/src/index/engine-index.ts`)) as typeof EngineIndex;
  const update = (await import(`${root}/engine/src/index/index-update.ts`)) as typeof IndexUpdate;
  const state: EngineIndex.ConfigState = {
    campaign: new Map(),
    creative: new Map(),
    partner: new Map(),
    site: new Map(),
    zone: new Map(),
    deal: new Map(),
  };
  // Decoded and copied as the mirror holds them (schemas/src/wire/change-log.ts).
  for (const kind of ['campaign', 'creative'] as const)
    for (const b of blobs[kind]) {
      const v = structuredClone(unpack<{ id: number }>(b));
      state[kind].set(v.id, v);
    }
  let index = build.buildIndex(state, '1-0');
  let n = 0;
  return () => {
    const t = clockUs();
    for (let k = 0; k < PER_BLOCK; k++, n++) {
      const c = state.campaign.get(1 + ((n * 7919) % campaigns)) as StoredCampaign;
      const change = {
        kind: 'campaign' as const,
        id: c.id,
        op: 'put' as const,
        value: { ...c, bid_micro_cents: c.bid_micro_cents + 1 },
      };
      index = update.updateIndex(index, state, [change], `${n + 2}-0`).index;
    }
    return { us: (clockUs() - t) / PER_BLOCK, ok: index.candidateCount };
  };
}

const before = await timer(process.argv[2] ?? '.');
const after = await timer(process.argv[3] ?? '.');
alternate(before, after);
