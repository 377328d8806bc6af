import type { EngineIndex } from './engine-index.ts';
import type { IndexDelta } from './index-update.ts';

/**
 * What a consumer that keeps its own view from index to index (the rotation's groups, the pacer's campaigns) must
 * look at to catch up with the latest index: the campaigns named by the deltas it was told of, or every campaign
 * where those are not known (the first index, a snapshot rebuilt whole, an index it was not told of).
 */
export class IndexDeltas {
  /** The index the last `catchUp` started from. */
  private at: EngineIndex | undefined;
  /** The last index told of. */
  private told: EngineIndex | undefined;
  /** Campaigns touched by the indexes told of since the last `catchUp`; undefined when not known. */
  private touched: Set<number> | undefined;

  /** What `index` changed since the previous index published (the mirror's `onIndex`). */
  indexChanged(index: EngineIndex, delta: IndexDelta): void {
    this.told = index;
    if (delta.full) this.touched = undefined;
    else if (this.touched) for (const id of delta.campaigns) this.touched.add(id);
  }

  /**
   * What changed up to `index` (the latest published) since the last call: nothing, these campaigns, or possibly
   * any. Indexes told of from here on (while the caller catches up) count towards the next call.
   */
  catchUp(index: EngineIndex): 'none' | 'all' | ReadonlySet<number> {
    if (this.at === index) return 'none';
    const touched = this.at !== undefined && this.told === index ? this.touched : undefined;
    this.touched = new Set();
    this.at = index;
    return touched ?? 'all';
  }
}

/** A consumer that keeps its own view from index to index: told of each index's delta, it catches up later. */
export abstract class IndexFollower {
  protected readonly deltas = new IndexDeltas();

  /** What `index` changed since the previous index published (the mirror's `onIndex`). */
  indexChanged(index: EngineIndex, delta: IndexDelta): void {
    this.deltas.indexChanged(index, delta);
  }
}
