// `tsx bench/src/ab-walk.ts <before-checkout> <after-checkout>`: the auction walk (engine/src/auction/run-auction.ts)
// of two trees timed in one process over the same ranked lists: 3 lists of 200 candidates, a floor the first few
// clear, every candidate passing the filters. A change of a fraction of a microsecond is lost in the whole bid
// handler's noise on a shared machine, not here.
import type * as RunAuction from '@adnet/engine/run-auction';
import { candidateFixture, impFixture } from '@adnet/engine/auction-fixtures';
import { rankCandidates } from '@adnet/engine/rank';
import { alternate, clockUs } from './ab-trees.ts';

const lists = [0, 1, 2].map((l) =>
  rankCandidates(
    Array.from({ length: 200 }, (_, i) => candidateFixture({ bid_micro_cents: 100_000 + 997 * ((i * 7 + l) % 200) })),
  ),
);
const imp = impFixture({ floorMicroCents: 250_000 });
const budget = { tryTake: () => true };
const picker = { pick: <T>(s: readonly T[]) => s[0] as T };

function timer(m: typeof RunAuction) {
  return () => {
    let ok = 0;
    const t = clockUs();
    for (let k = 0; k < 200_000; k++) if (m.runImpAuction(lists, imp, [], budget, picker).won) ok++;
    return { us: (clockUs() - t) / 200_000, ok };
  };
}

const load = (root: string) => import(`${root}/engine/src/auction/run-auction.ts`) as Promise<typeof RunAuction>;
const [before, after] = await Promise.all([load(process.argv[2] ?? '.'), load(process.argv[3] ?? '.')]);
alternate(timer(before), timer(after));
