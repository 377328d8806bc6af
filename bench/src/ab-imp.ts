// `tsx bench/src/ab-imp.ts <before-checkout> <after-checkout>`: the /imp handler of two trees timed in one
// process over the same world, zone and 20 000 requests (distinct visitors, one site's page).
import { alternate, loadTree } from './ab-trees.ts';
import type { Tree } from './ab-trees.ts';
import { impRequest, impState } from './imp-world.ts';

const state = impState();
const requests = Array.from({ length: 20_000 }, (_, i) => impRequest(i));

function timer(tree: Tree) {
  const index = tree.index.buildIndex(state, '1-0');
  // Limits as the engine builds them (the fixture's are small).
  const limits = tree.requestRate
    ? { zoneRequests: new tree.requestRate.ZoneRequestRate({ perAddressPerMinute: 600, perFingerprintPerMinute: 30, maxKeys: 200_000 }) }
    : {};
  // As the engine runs it: the supply side is on (trees before it ignore the field), no demand partner configured.
  const demand = { now: () => performance.now() } as unknown as never;
  const handle = tree.widget.impRoute(tree.fixture.bidPathContext(index, { emit: () => undefined, engineId: 'bench', ...limits, ...{ demand } }));
  return () => {
    let ok = 0;
    const t = process.hrtime.bigint();
    // Without demand partners the handler answers synchronously.
    for (const r of requests) if ((handle(r) as { status: number }).status === 200) ok++;
    return { us: Number(process.hrtime.bigint() - t) / 1000 / requests.length, ok };
  };
}

const [before, after] = await Promise.all([loadTree(process.argv[2] ?? '.'), loadTree(process.argv[3] ?? '.')]);
alternate(timer(before), timer(after));
