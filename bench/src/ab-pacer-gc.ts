// `tsx bench/src/ab-pacer-gc.ts <before-checkout> <after-checkout> [campaigns]`: the collector's cost of the
// pacer's tick (engine/src/pacing/pacer.ts) of two trees, one after the other: 100 000 even-paced campaigns
// (the index fixtures'), no spend yet in a bench Redis, a tick every 10 s of a simulated clock. Per tick after
// two warm-up ones: wall time, collections (how many are not young-generation), their total and longest pause.
import type * as Pacing from '../../engine/src/pacing/pacer.ts';
import type { EngineIndex } from '../../engine/src/index/engine-index.ts';
import { campaignFixture } from '../../engine/test/fixtures/index-fixtures.ts';
import { comparePasses } from './ab-pass-gc.ts';

const CAMPAIGNS = Number(process.argv[4] ?? 100_000);

const campaigns = new Map<number, unknown>();
const paces = new Map<number, { rate: number }>();
for (let c = 1; c <= CAMPAIGNS; c++) {
  campaigns.set(c, campaignFixture({ id: c }));
  paces.set(c, { rate: 1 });
}
const index = { campaigns, paces } as unknown as EngineIndex;

await comparePasses<typeof Pacing>({
  module: 'engine/src/pacing/pacer.ts',
  noun: 'tick',
  redisPrefix: 'adnet-ab-pacer-',
  start: (m, redis) => {
    let clock = Date.parse('2026-06-01T08:00:00Z');
    const pacer = new m.Pacer(
      redis,
      () => index,
      () => clock,
    );
    return () => {
      clock += 10_000;
      return pacer.tick();
    };
  },
});
process.exit(0);
