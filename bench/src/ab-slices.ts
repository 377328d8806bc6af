// `AB_CLOCK=cpu tsx bench/src/ab-slices.ts <before-checkout> <after-checkout>`: a budget slice's bookkeeping of
// outstanding bids (engine/src/budget/budget-slices.ts, `Slice`) of two trees, in one process: one campaign
// that won `AB_BIDS` bids within their hold (a busy zone's top campaign), settled by 100 re-bases, as its
// beacons' and win notices' spend comes back. Before step 9 each settled bid left with its own `shift`.
import type * as Slices from '@adnet/engine/budget-slices';
import { alternate, clockUs } from './ab-trees.ts';

const BIDS = Number(process.env.AB_BIDS ?? 60_000);
const NANO = 1_000;

function timer(m: typeof Slices) {
  return () => {
    const s = new m.Slice();
    for (let i = 0; i < BIDS; i++) s.take(NANO, i);
    const t = clockUs();
    for (let k = 0; k < 100; k++) s.settle((BIDS / 100) * NANO);
    const us = clockUs() - t;
    return { us: us / 100, ok: s.outstanding === 0 ? BIDS : -1 };
  };
}

const load = (root: string) => import(`${root}/engine/src/budget/budget-slices.ts`) as Promise<typeof Slices>;
const [before, after] = await Promise.all([load(process.argv[2] ?? '.'), load(process.argv[3] ?? '.')]);
alternate(timer(before), timer(after), Number(process.env.AB_ROUNDS ?? 4));
