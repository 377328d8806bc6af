/**
 * What one unit of the mirror's work (a change applied, a campaign published) costs, from the last few
 * measured: their median. The mirror sizes its groups and slices from it, and a measurement a garbage
 * collection fell into is not the work's cost: with 16 MiB semi-spaces a young collection of 2-8 ms came every
 * few groups of about 1 ms during a burst, and a smoothed mean of every measurement counted them, shrank the
 * groups, and made the burst of 1 000 changes take 314-467 ms instead of 146-191 (bench/results/performance.md,
 * "Step: the young generation"). The median leaves out up to half of the window; a cost that really moved is
 * taken up once most of the window shows it.
 */
export class CostEstimate {
  private readonly recent: number[] = [];
  private next = 0;
  private cached: number | undefined;

  constructor(
    private readonly initialMs: number,
    private readonly window = 8,
  ) {}

  add(ms: number): void {
    if (this.recent.length < this.window) this.recent.push(ms);
    else this.recent[this.next] = ms;
    this.next = (this.next + 1) % this.window;
    this.cached = undefined;
  }

  /** The lower median of the measurements kept; the initial guess before any. */
  get ms(): number {
    if (this.recent.length === 0) return this.initialMs;
    this.cached ??= this.recent.toSorted((a, b) => a - b)[(this.recent.length - 1) >> 1] as number;
    return this.cached;
  }
}
