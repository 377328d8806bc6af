import { buildIndex } from './engine-index.ts';
import type { ConfigState, EngineIndex } from './engine-index.ts';
import { FULL_DELTA, updateIndex } from './index-update.ts';
import type { ConfigChange, IndexDelta } from './index-update.ts';

/** What was published since the last look: the campaigns the deltas named, any index at all, one rebuilt whole. */
export interface Published {
  named: Set<number>;
  any: boolean;
  whole: boolean;
}

/**
 * For tests of the consumers of index deltas: indexes published one after another as the config mirror publishes
 * them, each told to `tell` with its delta: change by change, or a snapshot decoded whole (new maps, an index built
 * afresh, a full delta).
 */
export class Publisher {
  index: EngineIndex;
  private seq = 1;
  private since: Published = { named: new Set(), any: false, whole: false };

  constructor(
    private state: ConfigState,
    private readonly tell: (index: EngineIndex, delta: IndexDelta) => void,
  ) {
    this.index = buildIndex(state, '1-0');
    tell(this.index, FULL_DELTA);
  }

  change(changes: readonly ConfigChange[]): void {
    const next = updateIndex(this.index, this.state, changes, `${++this.seq}-0`);
    this.index = next.index;
    this.tell(this.index, next.delta);
    for (const id of next.delta.campaigns) this.since.named.add(id);
    this.since.any = true;
  }

  snapshot(changes: readonly ConfigChange[]): void {
    this.state = { ...this.state, campaign: new Map(this.state.campaign), creative: new Map(this.state.creative) };
    for (const c of changes) {
      const map = this.state[c.kind] as Map<number, unknown>;
      if (c.op === 'del') map.delete(c.id);
      else map.set(c.id, c.value);
    }
    this.index = buildIndex(this.state, `${++this.seq}-0`);
    this.tell(this.index, FULL_DELTA);
    this.since.any = this.since.whole = true;
  }

  /** What was published since the last call. */
  published(): Published {
    const since = this.since;
    this.since = { named: new Set(), any: false, whole: false };
    return since;
  }
}
