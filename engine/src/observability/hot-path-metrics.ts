/**
 * Counters and histograms for the per-request path, kept in plain numbers and
 * rendered in the Prometheus text format at scrape time. prom-client hashes a
 * label object on every observation (about 1 us for a labelled histogram
 * plus a counter); this costs a map lookup and a few additions, which keeps
 * metrics out of the bid path's budget.
 */

const escape = (v: string): string => v.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"');
const labelText = (labels: Record<string, string>): string =>
  Object.entries(labels)
    .map(([k, v]) => `${k}="${escape(v)}"`)
    .join(',');

export class HotCounter {
  private readonly values = new Map<string, { labels: Record<string, string>; n: number }>();

  constructor(
    readonly name: string,
    private readonly help: string,
  ) {}

  /** `key` must identify `labels`; callers build it cheaply (labels are only read the first time). */
  inc(key: string, labels: () => Record<string, string>, by = 1): void {
    const v = this.values.get(key);
    if (v) v.n += by;
    else this.values.set(key, { labels: labels(), n: by });
  }

  render(common: Record<string, string>): string {
    let out = `# HELP ${this.name} ${this.help}\n# TYPE ${this.name} counter\n`;
    for (const v of this.values.values()) out += `${this.name}{${labelText({ ...v.labels, ...common })}} ${v.n}\n`;
    return out;
  }
}

interface Series {
  labels: Record<string, string>;
  counts: Float64Array;
  sum: number;
  count: number;
}

export class HotHistogram {
  private readonly series = new Map<string, Series>();

  constructor(
    readonly name: string,
    private readonly help: string,
    private readonly buckets: readonly number[],
  ) {}

  observe(key: string, labels: () => Record<string, string>, value: number): void {
    let s = this.series.get(key);
    if (!s)
      this.series.set(key, (s = { labels: labels(), counts: new Float64Array(this.buckets.length), sum: 0, count: 0 }));
    // Per-bucket counts; cumulated when rendered.
    let i = 0;
    while (i < this.buckets.length && value > (this.buckets[i] as number)) i++;
    if (i < this.buckets.length) (s.counts[i] as number)++;
    s.sum += value;
    s.count++;
  }

  render(common: Record<string, string>): string {
    let out = `# HELP ${this.name} ${this.help}\n# TYPE ${this.name} histogram\n`;
    for (const s of this.series.values()) {
      const base = labelText({ ...s.labels, ...common });
      const sep = base ? ',' : '';
      let cumulative = 0;
      this.buckets.forEach((le, i) => {
        cumulative += s.counts[i] as number;
        out += `${this.name}_bucket{${base}${sep}le="${le}"} ${cumulative}\n`;
      });
      out += `${this.name}_bucket{${base}${sep}le="+Inf"} ${s.count}\n${this.name}_sum{${base}} ${s.sum}\n${this.name}_count{${base}} ${s.count}\n`;
    }
    return out;
  }
}
