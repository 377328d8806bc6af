// The soak's verdict (run-soak.ts), a pure function of what the run measured: how fast each process's
// memory grew after the warm-up, whether every event reached ClickHouse, and whether anything failed.

export interface MemorySample {
  /** Seconds since the load started. */
  t: number;
  rssMiB: number;
  /** V8 heap in use (from the process's Prometheus metrics); absent for processes without it (Redis). */
  heapMiB?: number;
}

export interface ProcessSeries {
  name: string;
  /** Whether its growth is held to the limit (the engines and the admin), or only reported (Redis). */
  checked: boolean;
  samples: readonly MemorySample[];
}

/** Events of one type: what the engines (and the admin, for conversions) emitted, what ClickHouse holds, what the load itself counted. */
export interface EventCount {
  type: string;
  emitted: number;
  stored: number;
  /** From the load's own answers, for the types it can count (impressions, clicks, conversions). */
  load?: number;
}

export interface SoakCheck {
  name: string;
  ok: boolean;
  detail: string;
}

export interface ProcessSlope {
  name: string;
  samples: number;
  /** MiB per minute after the warm-up (least squares); null with fewer than 2 samples. */
  rssMiBPerMin: number | null;
  heapMiBPerMin: number | null;
  rssMiB: { first: number; last: number; max: number };
}

export interface SoakVerdict {
  ok: boolean;
  slopes: ProcessSlope[];
  checks: SoakCheck[];
}

/** Least-squares slope of y over x (x in seconds), per minute; null for fewer than 2 points or one x. */
export function slopePerMinute(points: readonly (readonly [number, number])[]): number | null {
  const n = points.length;
  if (n < 2) return null;
  const mx = points.reduce((s, p) => s + p[0], 0) / n;
  const my = points.reduce((s, p) => s + p[1], 0) / n;
  let sxy = 0;
  let sxx = 0;
  for (const [x, y] of points) {
    sxy += (x - mx) * (y - my);
    sxx += (x - mx) ** 2;
  }
  return sxx === 0 ? null : (sxy / sxx) * 60;
}

const round = (x: number) => Math.round(x * 1000) / 1000;

export function soakVerdict(input: {
  processes: readonly ProcessSeries[];
  warmupSeconds: number;
  maxSlopeMiBPerMin: number;
  counts: readonly EventCount[];
  /** Answers of 500 or more, by route. */
  serverErrors: Readonly<Record<string, number>>;
}): SoakVerdict {
  const checks: SoakCheck[] = [];
  const slopes = input.processes.map((p): ProcessSlope => {
    const after = p.samples.filter((s) => s.t >= input.warmupSeconds);
    const rss = slopePerMinute(after.map((s) => [s.t, s.rssMiB]));
    const heapPoints = after.flatMap((s) => (s.heapMiB === undefined ? [] : [[s.t, s.heapMiB] as const]));
    const heap = slopePerMinute(heapPoints);
    const rssValues = p.samples.map((s) => s.rssMiB);
    const slope: ProcessSlope = {
      name: p.name,
      samples: after.length,
      rssMiBPerMin: rss === null ? null : round(rss),
      heapMiBPerMin: heap === null ? null : round(heap),
      rssMiB: { first: rssValues[0] ?? 0, last: rssValues.at(-1) ?? 0, max: Math.max(0, ...rssValues) },
    };
    if (p.checked) {
      for (const [what, value] of [
        ['RSS', slope.rssMiBPerMin],
        ['heap', slope.heapMiBPerMin],
      ] as const) {
        const ok = value !== null && value <= input.maxSlopeMiBPerMin;
        const detail =
          value === null
            ? `no slope: ${after.length} samples after the warm-up`
            : `${value} MiB/min after the warm-up (limit ${input.maxSlopeMiBPerMin})`;
        checks.push({ name: `${p.name} ${what} growth`, ok, detail });
      }
    }
    return slope;
  });
  for (const c of input.counts) {
    const loadOk = c.load === undefined || c.load === c.stored;
    checks.push({
      name: `${c.type} events in ClickHouse`,
      ok: c.stored === c.emitted && loadOk,
      detail: `emitted ${c.emitted}, stored ${c.stored}${c.load === undefined ? '' : `, counted by the load ${c.load}`}`,
    });
  }
  if (input.counts.length === 0)
    checks.push({ name: 'events in ClickHouse', ok: false, detail: 'no events were counted' });
  const errors = Object.entries(input.serverErrors).filter(([, n]) => n > 0);
  checks.push({
    name: 'no 5xx answers',
    ok: errors.length === 0,
    detail: errors.length ? errors.map(([route, n]) => `${route}: ${n}`).join(', ') : 'none',
  });
  return { ok: checks.every((c) => c.ok), slopes, checks };
}
