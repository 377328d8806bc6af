import { h, s } from './dom.ts';
import { fillSlots } from './series.ts';

export interface Series {
  name: string;
  color: string;
  values: number[];
}

const W = 640;
const H = 240;
/** The largest a label is drawn (a phone's, styles.css), and a glyph's width against it: room is made for that. */
const FONT = 20;
const GLYPH = 0.62;

/** An axis figure short enough to fit its margin: 12,345 as 12k, 3,400,000 as 3.4M. */
export function axisFigure(v: number): string {
  if (v >= 1_000_000) return `${(v / 1_000_000).toFixed(v >= 10_000_000 ? 0 : 1)}M`;
  if (v >= 10_000) return `${Math.round(v / 1_000)}k`;
  return String(v);
}

/** A time-series line chart as inline SVG, with a text summary for screen readers. */
export function lineChart(labels: string[], series: Series[], title: string): HTMLElement {
  const max = Math.max(1, ...series.flatMap((x) => x.values));
  const n = Math.max(labels.length, 1);
  // The left margin holds the widest figure at the largest size drawn, so no figure is cut at the edge.
  const PAD = { l: 10 + Math.ceil(axisFigure(max).length * FONT * GLYPH), r: 12, t: 14, b: FONT + 14 };
  const x = (i: number) => PAD.l + (n === 1 ? (W - PAD.l - PAD.r) / 2 : (i * (W - PAD.l - PAD.r)) / (n - 1));
  const y = (v: number) => H - PAD.b - (v / max) * (H - PAD.t - PAD.b);
  const svg = s('svg', { viewBox: `0 0 ${W} ${H}`, role: 'img', 'aria-label': title, class: 'chart' });
  for (const f of [0, 0.5, 1]) {
    const v = Math.round(max * f);
    svg.append(
      s('line', { x1: PAD.l, x2: W - PAD.r, y1: y(v), y2: y(v), class: 'grid' }),
      s('text', { x: PAD.l - 6, y: y(v) + 4, 'text-anchor': 'end' }, axisFigure(v)),
    );
  }
  const step = Math.ceil(n / 6);
  labels.forEach((l, i) => {
    if (i % step !== 0) return;
    // The first and last labels sit at the plot's edges: anchored inwards, they stay whole.
    const anchor = n > 1 && i === 0 ? 'start' : n > 1 && i === n - 1 ? 'end' : 'middle';
    svg.append(s('text', { x: x(i), y: H - 6, 'text-anchor': anchor }, l.length > 10 ? l.slice(5) : l));
  });
  for (const ser of series) {
    const pts = ser.values.map((v, i) => `${x(i)},${y(v)}`).join(' ');
    svg.append(
      s('polyline', { points: pts, fill: 'none', stroke: ser.color, 'stroke-width': 2, 'data-series': ser.name }),
    );
    ser.values.forEach((v, i) =>
      svg.append(
        s(
          'circle',
          { cx: x(i), cy: y(v), r: 3, fill: ser.color },
          s('title', {}, `${ser.name} ${labels[i] ?? ''}: ${v}`),
        ),
      ),
    );
  }
  const legend = h(
    'p',
    { class: 'legend' },
    series.map((ser) =>
      h(
        'span',
        {},
        h('i', { style: `background:${ser.color}` }),
        `${ser.name}: ${ser.values.reduce((a, b) => a + b, 0)}`,
      ),
    ),
  );
  return h('figure', {}, svg, h('figcaption', {}, title), legend);
}

/** Impressions and clicks of day rows (`date`) over `days`, silent days drawn as zero: the homes' and a campaign's trend. */
export function trafficChart(
  days: string[],
  rows: Record<string, string | number | null | undefined>[],
  title: string,
): HTMLElement {
  const filled = fillSlots(days, rows, 'date', ['impressions', 'clicks']);
  return lineChart(
    days,
    [
      { name: 'Impressions', color: '#2563eb', values: filled.map((r) => Number(r.impressions)) },
      { name: 'Clicks', color: '#dc2626', values: filled.map((r) => Number(r.clicks)) },
    ],
    title,
  );
}
