// `tsx bench/src/flamegraph.ts <profile.cpuprofile> <out.svg> [title]`: a flame graph (SVG) of a V8 CPU
// profile, as `node --cpu-prof` writes it (bench:load and bench:wrk pass BENCH_ENGINE_NODE_ARGS to the
// engine). Frames of one name under one parent are merged; width is CPU time, idle time left out, so the
// picture shows where the engine's busy time goes. Hover a frame for its share.
import { readFileSync, writeFileSync } from 'node:fs';
import { basename } from 'node:path';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}
interface Frame {
  name: string;
  file: string;
  self: number;
  total: number;
  children: Map<string, Frame>;
}

const SKIP = new Set(['(idle)', '(program)']);

export function frameTree(profile: Profile): Frame {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map<number, number>();
  profile.samples.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
  const root: Frame = { name: 'all', file: '', self: 0, total: 0, children: new Map() };
  const walk = (id: number, into: Frame) => {
    const node = byId.get(id);
    if (!node) return;
    const fn = node.callFrame.functionName || '(anonymous)';
    if (SKIP.has(fn)) return;
    const file = node.callFrame.url ? basename(node.callFrame.url) : '';
    // The root node of a profile stands for the whole: its children are the real frames.
    const isRoot = fn === '(root)';
    let frame = into;
    if (!isRoot) {
      const key = `${fn} ${file}`;
      frame = into.children.get(key) ?? { name: fn, file, self: 0, total: 0, children: new Map() };
      into.children.set(key, frame);
      frame.self += self.get(id) ?? 0;
    }
    for (const c of node.children ?? []) walk(c, frame);
  };
  walk(profile.nodes[0]?.id ?? 1, root);
  const sum = (f: Frame): number => (f.total = f.self + [...f.children.values()].reduce((t, c) => t + sum(c), 0));
  sum(root);
  return root;
}

const escape = (s: string) =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** Colour by where the code lives: ours (engine, schemas, runtime), dependencies, Node itself. */
function colour(f: Frame): string {
  if (/\.ts$/.test(f.file)) return '#f28e2b';
  if (!f.file) return '#b0b0b0';
  if (f.file.endsWith('.js') || f.file.endsWith('.mjs')) return f.file.includes(':') ? '#9c9ede' : '#edc948';
  return '#76b7b2';
}

export function flameSvg(root: Frame, title: string, width = 1600): string {
  const ROW = 17;
  const rows: string[] = [];
  let depthMax = 0;
  const minWidth = 0.5;
  const draw = (f: Frame, x: number, depth: number) => {
    const w = (f.total / root.total) * width;
    if (w < minWidth) return;
    depthMax = Math.max(depthMax, depth);
    const y = depth * ROW;
    const share = ((f.total / root.total) * 100).toFixed(2);
    const label = `${f.name}${f.file ? ` (${f.file})` : ''}`;
    const chars = Math.floor((w - 6) / 6.5);
    const text = chars >= 3 ? (label.length > chars ? `${label.slice(0, chars - 2)}..` : label) : '';
    rows.push(
      `<g><title>${escape(label)}: ${share}% of busy CPU (${(f.total / 1000).toFixed(0)} ms)</title>` +
        `<rect x="${x.toFixed(1)}" y="${y}" width="${w.toFixed(1)}" height="${ROW - 1}" fill="${depth === 0 ? '#d0d0d0' : colour(f)}" rx="2"/>` +
        (text ? `<text x="${(x + 3).toFixed(1)}" y="${y + 12}">${escape(text)}</text>` : '') +
        '</g>',
    );
    let cx = x;
    for (const c of [...f.children.values()].sort((a, b) => b.total - a.total)) {
      draw(c, cx, depth + 1);
      cx += (c.total / root.total) * width;
    }
  };
  draw({ ...root, name: `${title}: ${(root.total / 1000).toFixed(0)} ms busy` }, 0, 0);
  const height = (depthMax + 1) * ROW + 40;
  // Icicle layout (the root on top), which reads the same as a flame graph turned over.
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" font-family="monospace" font-size="11">`,
    `<g transform="translate(0,4)">`,
    ...rows,
    `</g>`,
    `<text x="4" y="${height - 8}" fill="#555">orange: our TypeScript; yellow: dependencies; grey: V8 and GC; teal: Node internals. Width = CPU time, idle excluded.</text>`,
    `</svg>`,
  ].join('\n');
}

if (process.argv[1]?.endsWith('flamegraph.ts')) {
  const [input, output, title] = process.argv.slice(2);
  if (!input || !output) {
    process.stderr.write('usage: tsx bench/src/flamegraph.ts <profile.cpuprofile> <out.svg> [title]\n');
    process.exit(2);
  }
  const profile = JSON.parse(readFileSync(input, 'utf8')) as Profile;
  writeFileSync(output, flameSvg(frameTree(profile), title ?? basename(input)));
}
