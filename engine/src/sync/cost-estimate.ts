/** How many times the median a measurement must be to be taken at once (a collection's group: 3-6, the marking's first: about 10). */
const JUMP = 3;

/**
 * What one unit of the mirror's work (a change applied, a campaign published) costs, from the last few
 * measured. The mirror sizes its groups and slices from it, and two kinds of measurement are not the work's
 * usual cost:
 *
 * - A group a young collection fell into: with 16 MiB semi-spaces one of 2-8 ms came every few groups of about
 *   1 ms during a burst, and a smoothed mean of every measurement counted them, shrank the groups, and made the
 *   burst of 1 000 changes take 314-467 ms instead of 146-191 (bench/results/ab-history.md, "Step: the young
 *   generation"). The median of the window leaves them out.
 * - Every group while V8 marks the heap for a full collection: at 100 000 campaigns each change copies about
 *   40 KB of candidate lists, and V8 marks on the event loop in proportion to what is allocated, so a change
 *   costs about ten times as much for the 0.5-2 s of marking. The median took that up only after three to five
 *   groups, each sized for the old cost: a burst meeting the marking held the loop for 4-14 ms in several slices
 *   (bench/results/ab-history.md, "Step: the burst in V8's marking").
 *
 * So the estimate is the median, unless the latest measurement is over JUMP times it: then the latest, at once.
 * A collection costs one group sized small (the next measurement lets it go); the marking's rise is taken from
 * the next group on, and kept by the median once half of the window shows it. Not the larger of the two at
 * every measurement: while V8 marks, changes cost 0.35-1.6 ms from one group to the next, and sizing each group
 * from the dearest recent one made more groups of one change, each with a group's own cost (0.84 ms a change
 * through the marking in one run, against 0.52-0.67 on main).
 */
export class CostEstimate {
  private readonly recent: number[] = [];
  private next = 0;
  private last = 0;
  private cached: number | undefined;

  constructor(
    private readonly initialMs: number,
    private readonly window = 8,
  ) {}

  add(ms: number): void {
    if (this.recent.length < this.window) this.recent.push(ms);
    else this.recent[this.next] = ms;
    this.next = (this.next + 1) % this.window;
    this.last = ms;
    this.cached = undefined;
  }

  /** The lower median of the measurements kept, or the latest one where it is over JUMP times that; the initial guess before any. */
  get ms(): number {
    if (this.recent.length === 0) return this.initialMs;
    if (this.cached === undefined) {
      const median = this.recent.toSorted((a, b) => a - b)[(this.recent.length - 1) >> 1] as number;
      this.cached = this.last > JUMP * median ? this.last : median;
    }
    return this.cached;
  }
}
