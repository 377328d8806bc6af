// `tsx bench/src/plots.ts`: SVG plots of the latest results in bench/results, written beside them:
// latency against offered rate for the engine and bare uWS (load.json), and CPU per request and the
// highest rate per endpoint (wrk.json). bench:load and bench:wrk call it when they finish. Plain SVG,
// no library: axes, lines or bars, and labels, readable in a browser or on GitHub.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './child.ts';

const RESULTS = join(ROOT, 'bench', 'results');
const W = 720;
const H = 400;
const M = { left: 70, right: 170, top: 40, bottom: 50 };
const COLOURS = ['#2563eb', '#dc2626', '#059669', '#d97706', '#7c3aed', '#0891b2', '#be185d', '#65a30d'];
const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** A "nice" upper bound for an axis: 1, 2 or 5 times a power of ten at or above `v`. */
export function niceMax(v: number): number {
  if (v <= 0) return 1;
  const p = 10 ** Math.floor(Math.log10(v));
  return [1, 2, 5, 10].map((m) => m * p).find((x) => x >= v) ?? 10 * p;
}

export interface Series {
  name: string;
  points: readonly (readonly [number, number])[];
}

/** A line chart of `series` (x and y from zero to a nice bound), with a legend on the right. */
export function lineChart(title: string, xLabel: string, yLabel: string, series: readonly Series[]): string {
  const xs = series.flatMap((s) => s.points.map((p) => p[0]));
  const ys = series.flatMap((s) => s.points.map((p) => p[1]));
  const [xMax, yMax] = [niceMax(Math.max(0, ...xs)), niceMax(Math.max(0, ...ys))];
  const pw = W - M.left - M.right;
  const ph = H - M.top - M.bottom;
  const x = (v: number) => M.left + (v / xMax) * pw;
  const y = (v: number) => M.top + ph - (Math.min(v, yMax) / yMax) * ph;
  const ticks = [0, 0.25, 0.5, 0.75, 1];
  const out = frame(title, xLabel, yLabel);
  for (const t of ticks) {
    out.push(`<line x1="${M.left}" x2="${M.left + pw}" y1="${y(t * yMax)}" y2="${y(t * yMax)}" stroke="#e5e7eb"/>`);
    out.push(`<text x="${M.left - 6}" y="${y(t * yMax) + 4}" text-anchor="end">${fmt(t * yMax)}</text>`);
    out.push(`<text x="${x(t * xMax)}" y="${M.top + ph + 16}" text-anchor="middle">${fmt(t * xMax)}</text>`);
  }
  series.forEach((s, i) => {
    const colour = COLOURS[i % COLOURS.length] as string;
    const path = s.points.map((p, k) => `${k ? 'L' : 'M'}${x(p[0]).toFixed(1)},${y(p[1]).toFixed(1)}`).join(' ');
    out.push(`<path d="${path}" fill="none" stroke="${colour}" stroke-width="2"/>`);
    for (const p of s.points)
      out.push(
        `<circle cx="${x(p[0]).toFixed(1)}" cy="${y(p[1]).toFixed(1)}" r="3" fill="${colour}"><title>${esc(s.name)}: ${p[0]}, ${p[1]}</title></circle>`,
      );
    out.push(`<rect x="${W - M.right + 16}" y="${M.top + i * 20}" width="12" height="12" fill="${colour}"/>`);
    out.push(`<text x="${W - M.right + 34}" y="${M.top + i * 20 + 10}">${esc(s.name)}</text>`);
  });
  return close(out);
}

/** A horizontal bar chart: one bar per label. */
export function barChart(title: string, xLabel: string, bars: readonly { label: string; value: number }[]): string {
  const xMax = niceMax(Math.max(0, ...bars.map((b) => b.value)));
  const left = 220;
  const pw = W - left - 40;
  const row = Math.min(36, (H - M.top - M.bottom) / Math.max(1, bars.length));
  const out = frame(title, xLabel, '');
  bars.forEach((b, i) => {
    const yTop = M.top + i * row;
    const w = (b.value / xMax) * pw;
    out.push(`<text x="${left - 8}" y="${yTop + row / 2 + 4}" text-anchor="end">${esc(b.label)}</text>`);
    out.push(`<rect x="${left}" y="${yTop + 4}" width="${w.toFixed(1)}" height="${row - 8}" fill="${COLOURS[0]}"/>`);
    out.push(`<text x="${left + w + 6}" y="${yTop + row / 2 + 4}">${fmt(b.value)}</text>`);
  });
  return close(out);
}

function frame(title: string, xLabel: string, yLabel: string): string[] {
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" font-family="sans-serif" font-size="12">`,
    `<rect width="${W}" height="${H}" fill="#fff"/>`,
    `<text x="${W / 2}" y="22" text-anchor="middle" font-size="15" font-weight="bold">${esc(title)}</text>`,
    `<text x="${(M.left + W - M.right) / 2}" y="${H - 10}" text-anchor="middle">${esc(xLabel)}</text>`,
    yLabel ? `<text transform="translate(16,${H / 2}) rotate(-90)" text-anchor="middle">${esc(yLabel)}</text>` : '',
  ];
}
const close = (parts: string[]) => [...parts, '</svg>', ''].join('\n');
const fmt = (v: number) => (v >= 1000 ? `${Math.round(v / 100) / 10}k` : `${Math.round(v * 100) / 100}`);

interface LoadStep {
  targetRate: number;
  achievedRate: number;
  p99: number;
  cpuUsPerRequest: number;
}
interface WrkRow {
  target: string;
  endpoint: string;
  rate: number;
  cpuUsPerRequest: number;
}

interface PipelineSample {
  t: number;
  lagMs: number;
  eventsPerSecond: number;
}

/** Events/s over the last `windowS` seconds at each sample: batches are acknowledged whole, so the rate between two samples jumps between 0 and a batch. */
export function windowRate(samples: readonly PipelineSample[], windowS: number): [number, number][] {
  const done: number[] = [];
  samples.forEach((x, i) =>
    done.push(i === 0 ? 0 : (done[i - 1] ?? 0) + x.eventsPerSecond * (x.t - (samples[i - 1]?.t ?? 0))),
  );
  const out: [number, number][] = [];
  let j = 0;
  samples.forEach((x, i) => {
    while (j < i && x.t - (samples[j]?.t ?? 0) > windowS) j++;
    const dt = x.t - (samples[j]?.t ?? 0);
    if (i > 0 && dt > 0) out.push([x.t, Math.round(((done[i] ?? 0) - (done[j] ?? 0)) / dt)]);
  });
  return out;
}

/** Writes every plot whose results file exists; answers the files written. */
export function writePlots(dir = RESULTS): string[] {
  const written: string[] = [];
  const load = join(dir, 'load.json');
  if (existsSync(load)) {
    const r = JSON.parse(readFileSync(load, 'utf8')) as {
      bareUws: { steps: LoadStep[] };
      floor?: { steps: LoadStep[] };
      engine: { steps: LoadStep[] };
      engineProcesses: number;
    };
    const series = (name: string, steps: LoadStep[], pick: (s: LoadStep) => number): Series => ({
      name,
      points: steps.map((s) => [s.targetRate, pick(s)] as const),
    });
    // Results written before the floor existed have none.
    const floor = (pick: (s: LoadStep) => number): Series[] => (r.floor ? [series('floor', r.floor.steps, pick)] : []);
    writeFileSync(
      join(dir, 'load-latency.svg'),
      lineChart(
        'POST /openrtb/bid: p99 latency against offered rate (bench:load)',
        'offered rate, requests/s',
        'p99 latency, ms (axis capped)',
        [
          series('bare uWS', r.bareUws.steps, (s) => s.p99),
          ...floor((s) => s.p99),
          series(`engine x${r.engineProcesses}`, r.engine.steps, (s) => s.p99),
        ],
      ),
    );
    writeFileSync(
      join(dir, 'load-cpu.svg'),
      lineChart(
        'POST /openrtb/bid: CPU per request against offered rate (bench:load)',
        'offered rate, requests/s',
        'CPU per request, us',
        [
          series('bare uWS', r.bareUws.steps, (s) => s.cpuUsPerRequest),
          ...floor((s) => s.cpuUsPerRequest),
          series(`engine x${r.engineProcesses}`, r.engine.steps, (s) => s.cpuUsPerRequest),
        ],
      ),
    );
    written.push('load-latency.svg', 'load-cpu.svg');
  }
  const wrk = join(dir, 'wrk.json');
  if (existsSync(wrk)) {
    const r = JSON.parse(readFileSync(wrk, 'utf8')) as { rows: WrkRow[] };
    const label = (w: WrkRow) => `${w.target} ${w.endpoint}`;
    writeFileSync(
      join(dir, 'wrk-cpu.svg'),
      barChart(
        'CPU per request by endpoint (bench:wrk)',
        'CPU per request, us',
        r.rows.map((w) => ({ label: label(w), value: w.cpuUsPerRequest })),
      ),
    );
    writeFileSync(
      join(dir, 'wrk-rate.svg'),
      barChart(
        'Highest rate, closed loop (bench:wrk)',
        'requests/s',
        r.rows.map((w) => ({ label: label(w), value: w.rate })),
      ),
    );
    written.push('wrk-cpu.svg', 'wrk-rate.svg');
  }
  const pipeline = join(dir, 'pipeline.json');
  if (existsSync(pipeline)) {
    const r = JSON.parse(readFileSync(pipeline, 'utf8')) as {
      steady?: { offeredRate: number; generatedRate?: number; seconds?: number; samples: PipelineSample[] };
    };
    if (r.steady) {
      const { offeredRate, generatedRate = offeredRate, seconds = Infinity, samples } = r.steady;
      writeFileSync(
        join(dir, 'pipeline-rate.svg'),
        lineChart(`Events into ClickHouse at ${offeredRate} events/s offered (bench:pipeline)`, 'time, s', 'events/s', [
          // What the generator managed to write (on a busy machine it falls short of the rate offered).
          {
            name: 'written (mean)',
            points: samples.filter((x) => x.t <= seconds).map((x) => [x.t, generatedRate] as const),
          },
          { name: 'ingested (10 s window)', points: windowRate(samples, 10) },
        ]),
      );
      writeFileSync(
        join(dir, 'pipeline-lag.svg'),
        lineChart(
          `Lag at ${offeredRate} events/s offered (bench:pipeline)`,
          'time, s',
          'oldest event not in ClickHouse, ms',
          [{ name: 'lag', points: samples.map((x) => [x.t, x.lagMs] as const) }],
        ),
      );
      written.push('pipeline-rate.svg', 'pipeline-lag.svg');
    }
  }
  return written;
}

if (process.argv[1]?.endsWith('plots.ts')) process.stdout.write(`wrote ${writePlots().join(', ')}\n`);
