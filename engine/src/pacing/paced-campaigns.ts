import type { EngineIndex } from '../index/engine-index.ts';
import { IndexFollower } from '../index/index-deltas.ts';

/** A campaign the last update looked at: `paced` whether it is paced now (joined, stayed or changed), or left. */
export type PacedChanged = (campaign: number, paced: boolean) => void;

/** How `update` brought the list to the index: nothing published since, the changed campaigns alone, or every campaign. */
export type Repace = 'none' | 'some' | 'all';

/** Campaigns looked at between two pauses. */
const STEP = 1_000;

/**
 * The even-paced campaigns the engine serves (a pace handle in the index, pacing `even`), kept in one map
 * changed in place.
 *
 * Listing them afresh at each new index (the engine publishes one per admin change) walked every campaign of
 * the index at the next pacing tick: at 100 000 campaigns a large part of a tick's 50-150 ms. The index's delta
 * names the campaigns a change touched (their pace handles and pacing are all a change can alter here): told
 * each delta (`indexChanged`), `update` looks at those alone. Where the changes are not known (the first index,
 * a snapshot rebuilt whole, an index it was not told of) it looks at every campaign, into the same map.
 *
 * The map's order is the sweep's (`MovedSince.sweepKeys`): a campaign keeps its place while it stays, one that
 * joins goes to the end.
 */
export class PacedCampaigns extends IndexFollower {
  readonly ids = new Map<number, true>();

  /**
   * Brings the list to `index` (the latest published), reporting to `changed` each campaign it looked at: those a
   * delta named, or, when it looked at all of them, every paced one and every one that left. Indexes published
   * during its pauses are told of as usual and looked at by the next call.
   */
  async update(index: EngineIndex, pause: () => Promise<void>, changed: PacedChanged): Promise<Repace> {
    const touched = this.deltas.catchUp(index);
    if (touched === 'none') return 'none';
    let seen = 0;
    if (touched !== 'all') {
      for (const id of touched) {
        if (++seen % STEP === 0) await pause();
        this.put(index, id, changed);
      }
      return 'some';
    }
    for (const id of this.ids.keys()) {
      if (++seen % STEP === 0) await pause();
      if (!isPaced(index, id)) this.put(index, id, changed);
    }
    for (const id of index.paces.keys()) {
      if (++seen % STEP === 0) await pause();
      if (isPaced(index, id)) this.put(index, id, changed);
    }
    return 'all';
  }

  private put(index: EngineIndex, id: number, changed: PacedChanged): void {
    const paced = isPaced(index, id);
    if (paced) this.ids.set(id, true);
    else this.ids.delete(id);
    changed(id, paced);
  }
}

/** Whether the pacer paces campaign `id` in `index`: it serves (has a pace handle) and paces evenly. */
export const isPaced = (index: EngineIndex, id: number): boolean =>
  index.paces.has(id) && (index.campaigns.get(id)?.pacing ?? 'even') === 'even';
