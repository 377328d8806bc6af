// `tsx bench/src/ab-bid.ts <before-checkout> <after-checkout>`: the OpenRTB bid handler of two trees timed
// in one process over the same 10 000-campaign world and request corpus.
import type { ConfigState } from '@adnet/engine/engine-index';
import { alternate, loadTree } from './ab-trees.ts';
import type { Tree } from './ab-trees.ts';
import { makeCorpus } from './corpus.ts';
import { generateWorld } from './world.ts';

const world = generateWorld({ campaigns: 10_000, creativesPerCampaign: 3, advertisers: 500, deliveryRules: true });
const corpus = makeCorpus(1_000);
const state: ConfigState = {
  campaign: new Map(world.campaigns.map((c) => [c.id, c])),
  creative: new Map(world.creatives.map((c) => [c.id, c])),
  partner: new Map([[1, world.partner]]),
  site: new Map(),
  zone: new Map(),
  deal: new Map(),
};

function timer(tree: Tree) {
  const handle = tree.bid.bidRoute(tree.fixture.bidPathContext(tree.index.buildIndex(state, '1-0'), { emit: () => undefined, engineId: 'bench' }));
  return () => {
    let ok = 0;
    const t = process.hrtime.bigint();
    for (let k = 0; k < 20; k++) for (const body of corpus) if (handle(tree.fixture.bidRequestOf(body)).status === 200) ok++;
    return { us: Number(process.hrtime.bigint() - t) / 1000 / (20 * corpus.length), ok };
  };
}

const [before, after] = await Promise.all([loadTree(process.argv[2] ?? '.'), loadTree(process.argv[3] ?? '.')]);
alternate(timer(before), timer(after));
