// `tsx bench/src/ab-bid.ts <before-checkout> <after-checkout>`: the OpenRTB bid handler of two trees timed
// in one process over the same 10 000-campaign world and request corpus.
import { alternate, clockUs, loadTree, timedBuild } from './ab-trees.ts';
import type { Tree } from './ab-trees.ts';
import { makeCorpus } from './corpus.ts';
import { addSourceLists, configStateOf, generateWorld } from './world.ts';

const world = generateWorld({ campaigns: 10_000, creativesPerCampaign: 3, advertisers: 500, deliveryRules: true });
// 10 000-entry source lists on 1 000 of the campaigns, 60 bid adjustments on a share of those (BENCH_ADJUSTED, default 0.2;
// BENCH_SOURCE_LISTS=0: neither); a tree from before them ignores both.
const sourceLists =
  process.env.BENCH_SOURCE_LISTS === '0'
    ? undefined
    : addSourceLists(world, {
        campaigns: 1_000,
        entries: 10_000,
        zone: 'benchzone01',
        siteId: 1,
        adjusted: Number(process.env.BENCH_ADJUSTED ?? 0.2),
      });
const corpus = makeCorpus(1_000);
const state = configStateOf(world, sourceLists);

function timer(tree: Tree) {
  const handle = tree.bid.bidRoute(
    tree.fixture.bidPathContext(timedBuild(tree, state), { emit: () => undefined, engineId: 'bench' }),
  );
  return () => {
    let ok = 0;
    const t = clockUs();
    for (let k = 0; k < 20; k++)
      for (const body of corpus) if (handle(tree.fixture.bidRequestOf(body)).status === 200) ok++;
    return { us: (clockUs() - t) / (20 * corpus.length), ok };
  };
}

const [before, after] = await Promise.all([loadTree(process.argv[2] ?? '.'), loadTree(process.argv[3] ?? '.')]);
alternate(timer(before), timer(after));
