// `tsx bench/src/ab-rotation-gc.ts <before-checkout> <after-checkout> [campaigns]`: the collector's cost of the
// creative rotation's refresh (engine/src/rotation/creative-rotation.ts) of two trees, one after the other in
// fresh processes' worth of state: 100 000 optimizing campaigns of 3 creatives, none served yet (counts empty in
// a bench Redis), as the bench world. Per refresh after two warm-up ones: wall time, collections (how many are
// not young-generation), their total and longest pause. What a refresh keeps alive across its pipelines is
// copied by every young-generation collection that runs meanwhile.
import type * as Rotation from '@adnet/engine/creative-rotation';
import type { EngineIndex } from '@adnet/engine/engine-index';
import { comparePasses } from './ab-pass-gc.ts';

const CAMPAIGNS = Number(process.argv[4] ?? 100_000);

const creatives = new Map<number, unknown>();
const campaigns = new Map<number, unknown>();
for (let c = 1; c <= CAMPAIGNS; c++) {
  campaigns.set(c, { id: c, rotation: 'optimize' });
  for (let k = 0; k < 3; k++)
    creatives.set(c * 3 + k, { id: c * 3 + k, campaign_id: c, status: 'approved', weight: 1 });
}
const index = { creatives, campaigns } as unknown as EngineIndex;

await comparePasses<typeof Rotation>({
  module: 'engine/src/rotation/creative-rotation.ts',
  noun: 'refresh',
  redisPrefix: 'adnet-ab-rotation-',
  start: (m, redis) => {
    const rotation = new m.CreativeRotation({ redis, index: () => index });
    return () => rotation.refresh();
  },
});
process.exit(0);
