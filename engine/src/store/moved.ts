import { MOVED_MARGIN_MS, MOVED_READABLE_MS, markMoved, readMoved } from '@adnet/runtime/moved-marks';
import type { MovedKind } from '@adnet/runtime/moved-marks';
import type { Redis } from 'ioredis';

/**
 * The campaigns this engine changed since it last sent its marks (@adnet/runtime/moved-marks). Adding is
 * a set insertion, so the paths that change counts or spend pay nothing more; `flush` sends them all in one
 * command, after the changes themselves were confirmed.
 */
export class MovedMarks {
  private moved = new Set<number>();

  constructor(
    private readonly redis: Redis,
    private readonly kind: MovedKind,
  ) {}

  add(campaign: number): void {
    this.moved.add(campaign);
  }

  async flush(now = Date.now()): Promise<void> {
    if (!this.moved.size) return;
    const sending = this.moved;
    this.moved = new Set<number>();
    try {
      await markMoved(this.redis, this.kind, sending, now);
    } catch (err) {
      // Not marked: sent again with the next flush (a mark sent late is still read, in a later bucket).
      for (const c of sending) this.moved.add(c);
      throw err;
    }
  }
}

/**
 * Passes per full sweep: 30 min at 10 s. Each read costs the client about 3 KB of garbage: 1/60 (10 min) cost
 * 5 MB a pass at 100 000 campaigns, this 2 MB, against 0.1 MB for the rest of a pass in which nothing moved.
 */
export const SWEEP_PASSES = 180;

/**
 * What a periodic pass over every campaign (the rotation's refresh, the pacer's tick) must read: the campaigns
 * marked as moved since its last complete pass, or everything when the marks cannot tell (the first pass, a
 * gap longer than the marks are kept).
 *
 * Marks can be lost where the change they mark is not: a failover can drop the last writes of the marks'
 * shard and keep those of a campaign's (or, on one server, drop a mark written after its change); a count key
 * can expire without a writer. A campaign that keeps moving is marked again and read then (its pacing and
 * shares catch up with everything since); one that moved once and stopped would keep what it had. So each
 * pass also reads a slice of every campaign (`sweep`), all of them once every `sweepPasses` passes: a lost mark
 * costs at most that long of stale shares or pacing.
 */
export class MovedSince {
  private last: number | undefined;
  private sweepAt = 0;
  /** Where `sweepKeys` is in its map. */
  private walk:
    { over: ReadonlyMap<unknown, unknown>; keys: Iterator<unknown>; pass: number; taken: number } | undefined;

  /** `sweepPasses`: passes per full sweep; 0 sweeps nothing, 1 reads everything at every pass. */
  constructor(
    private readonly redis: Redis,
    private readonly kind: MovedKind,
    private readonly sweepPasses: number,
  ) {}

  /** The campaigns marked since the last complete pass (`done`), or undefined: read them all. */
  async since(now: number): Promise<Set<number> | undefined> {
    if (
      this.last === undefined ||
      this.sweepPasses === 1 ||
      now - this.last > MOVED_READABLE_MS ||
      now < this.last - MOVED_MARGIN_MS
    )
      return undefined;
    return readMoved(this.redis, this.kind, this.last - MOVED_MARGIN_MS, now);
  }

  /** This pass's share of the sweep over `all`. */
  sweep<T>(all: readonly T[]): readonly T[] {
    if (!this.sweepPasses || !all.length) return [];
    if (this.sweepAt >= all.length) this.sweepAt = 0;
    const from = this.sweepAt;
    this.sweepAt += Math.ceil(all.length / this.sweepPasses);
    return all.slice(from, this.sweepAt);
  }

  /**
   * This pass's share of the sweep over the keys of `all`, a map kept from pass to pass and changed in place
   * (another map starts a new round). The walk is the map's own iterator, which skips the keys deleted and reaches
   * those added at the end, and a round's last pass takes all it has left: a key present for a whole round is
   * read in it, however many keys joined or left meanwhile, and a round takes at most `sweepPasses` passes, so a
   * key present for 2 * sweepPasses - 1 passes in a row is read in them. (Positions in an array rebuilt between
   * passes shift keys past the sweep or back over it, and keys appended at its end can stretch a round.)
   */
  sweepKeys<K>(all: ReadonlyMap<K, unknown>): K[] {
    if (!this.sweepPasses || !all.size) return [];
    if (this.walk?.over !== all) this.walk = { over: all, keys: all.keys(), pass: 0, taken: 0 };
    const walk = this.walk as { over: ReadonlyMap<K, unknown>; keys: Iterator<K>; pass: number; taken: number };
    const left = this.sweepPasses - walk.pass;
    // Keys read this round that left since make this an estimate short of what is left; the last pass catches up.
    const n = left <= 1 ? Infinity : Math.max(1, Math.ceil((all.size - walk.taken) / left));
    const out: K[] = [];
    let ended = false;
    while (out.length < n) {
      const next = walk.keys.next();
      if (next.done) {
        ended = true;
        break;
      }
      out.push(next.value);
    }
    walk.taken += out.length;
    if (ended || ++walk.pass >= this.sweepPasses) Object.assign(walk, { keys: all.keys(), pass: 0, taken: 0 });
    return out;
  }

  /** The pass that started at `now` read all it was told to: the next one reads the marks from there. */
  done(now: number): void {
    this.last = now;
  }

  /** The next pass reads everything (a new budget day). */
  forget(): void {
    this.last = undefined;
  }
}
