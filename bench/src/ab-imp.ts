// `tsx bench/src/ab-imp.ts <before-checkout> <after-checkout>`: the /imp handler of two trees timed in one
// process over the same world, zone and 20 000 requests (distinct visitors, one site's page).
import { alternate, clockUs, loadTree, timedBuild } from './ab-trees.ts';
import type { Tree } from './ab-trees.ts';
import { impRequest, impState, world } from './imp-world.ts';
import { addSourceLists } from './world.ts';

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
const state = impState(sourceLists ? { campaign_sources: sourceLists } : {});
const requests = Array.from({ length: 20_000 }, (_, i) => impRequest(i));

function timer(tree: Tree) {
  const index = timedBuild(tree, state);
  // Limits as the engine builds them (the fixture's are small).
  const limits = tree.requestRate
    ? {
        zoneRequests: new tree.requestRate.ZoneRequestRate({
          perAddressPerMinute: 600,
          perFingerprintPerMinute: 30,
          maxKeys: 200_000,
        }),
      }
    : {};
  // As the engine runs it: the supply side is on (trees before it ignore the field), no demand partner configured.
  const demand = { now: () => performance.now() } as unknown as never;
  const handle = tree.widget.impRoute(
    tree.fixture.bidPathContext(index, { emit: () => undefined, engineId: 'bench', ...limits, ...{ demand } }),
  );
  return () => {
    let ok = 0;
    const t = clockUs();
    // Without demand partners the handler answers synchronously.
    for (const r of requests) if ((handle(r) as { status: number }).status === 200) ok++;
    return { us: (clockUs() - t) / requests.length, ok };
  };
}

const [before, after] = await Promise.all([loadTree(process.argv[2] ?? '.'), loadTree(process.argv[3] ?? '.')]);
alternate(timer(before), timer(after));
