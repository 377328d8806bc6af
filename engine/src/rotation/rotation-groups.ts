import type { Creative, StoredCampaign } from '@adnet/schemas/api';
import { bookOf } from '../index/engine-index.ts';
import type { EngineIndex } from '../index/engine-index.ts';
import { IndexFollower } from '../index/index-deltas.ts';

/** A group whose creatives changed, joined (`was` undefined) or left (`now` undefined). */
export type GroupChanged = (
  campaign: number,
  was: readonly Creative[] | undefined,
  now: readonly Creative[] | undefined,
) => void;

/** How `update` brought the groups to the index: nothing published since, the changed campaigns alone, or every campaign. */
export type Regroup = 'none' | 'some' | 'all';

/** Campaigns regrouped between two pauses: a campaign costs a few lookups, a catch-up can touch thousands. */
const STEP = 1_000;

/**
 * The optimizing campaigns (an existing campaign whose rotation is `optimize`, two approved creatives or more)
 * with their approved creatives in id order, kept in one map changed in place.
 *
 * Regrouping every approved creative at each new index (the engine publishes one per admin change) allocated
 * about 55 MB at 100 000 campaigns and lived through the refresh's young-generation collections (13-27 ms
 * pauses while changes were applied). The index's delta names the campaigns a change touched (a creative's
 * change its old and new campaign, a campaign's change itself): told each delta (`indexChanged`), `update`
 * regroups those alone. Where the changes are not known (the first index, a snapshot rebuilt whole, an index
 * it was not told of) it regroups everything, into the same map.
 *
 * The map's order is the sweep's (`MovedSince.sweepKeys`): a campaign keeps its place while it stays, one that
 * joins goes to the end, one that leaves is skipped, so a sweep walking it reads every campaign once a round
 * whatever changed meanwhile. Creatives are in id order so that both ways of grouping give the same lists.
 */
export class RotationGroups extends IndexFollower {
  readonly groups = new Map<number, readonly Creative[]>();

  /**
   * Brings the groups to `index` (the latest published), reporting each group that changed to `changed`. Indexes
   * published during its pauses are told of as usual and regrouped by the next call (the index's maps are the
   * mirror's own, so a campaign regrouped late here already reads them as they are then).
   */
  async update(index: EngineIndex, pause: () => Promise<void>, changed: GroupChanged): Promise<Regroup> {
    const touched = this.deltas.catchUp(index);
    if (touched === 'none') return 'none';
    const book = touched !== 'all' && bookOf(index);
    if (touched !== 'all' && book) {
      let seen = 0;
      for (const id of touched) {
        if (++seen % STEP === 0) await pause();
        let group: Creative[] | undefined;
        if (optimizes(index.campaigns.get(id)))
          for (const creativeId of book.creativesOf.get(id) ?? []) {
            const cr = index.creatives.get(creativeId);
            if (cr?.status === 'approved') (group ??= []).push(cr);
          }
        this.put(id, group, changed);
      }
      return 'some';
    }
    const approved = new Map<number, Creative[]>();
    let seen = 0;
    for (const cr of index.creatives.values()) {
      if (++seen % STEP === 0) await pause();
      if (cr.status !== 'approved') continue;
      const list = approved.get(cr.campaign_id);
      if (list) list.push(cr);
      else approved.set(cr.campaign_id, [cr]);
    }
    for (const id of this.groups.keys()) {
      if (++seen % STEP === 0) await pause();
      if (!approved.has(id)) this.put(id, undefined, changed);
    }
    for (const [id, list] of approved) {
      if (++seen % STEP === 0) await pause();
      this.put(id, optimizes(index.campaigns.get(id)) ? list : undefined, changed);
    }
    return 'all';
  }

  /** Sets campaign `id`'s group from its approved creatives (any order; none: undefined), reporting a change. */
  private put(id: number, approved: Creative[] | undefined, changed: GroupChanged): void {
    const was = this.groups.get(id);
    if (approved === undefined || approved.length < 2) {
      if (!was) return;
      this.groups.delete(id);
      changed(id, was, undefined);
      return;
    }
    const now = approved.sort(byId);
    // Replaced even when the same creatives: their objects are the configuration's latest.
    this.groups.set(id, now);
    if (!was || !sameIds(was, now)) changed(id, was, now);
  }
}

/** Campaigns stored before rotation existed optimize; a campaign gone from the configuration has no group. */
const optimizes = (c: StoredCampaign | undefined): boolean =>
  c !== undefined && (c.rotation ?? 'optimize') === 'optimize';

const byId = (a: Creative, b: Creative): number => a.id - b.id;

const sameIds = (a: readonly Creative[], b: readonly Creative[]): boolean =>
  a.length === b.length && a.every((cr, i) => cr.id === (b[i] as Creative).id);
