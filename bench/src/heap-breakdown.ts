// `node --max-old-space-size=8000 --import tsx bench/src/heap-breakdown.ts <file.heapsnapshot> [top]`: what a V8
// heap snapshot holds, by constructor and by owner. Self size by node type and constructor name; then each
// object's owner is its parent on the shortest path from the roots (a breadth-first tree, weak edges skipped),
// and the objects with the largest trees under them are listed with that path: a cheap stand-in for retained
// size that names who keeps what. Reads the snapshot's integer arrays without building them as JSON.
import { readFileSync } from 'node:fs';

const file = process.argv[2];
if (!file) throw new Error('usage: heap-breakdown.ts <file.heapsnapshot> [top]');
const TOP = Number(process.argv[3] ?? 40);
const buf = readFileSync(file);
const at = (needle: string, from = 0) => {
  const i = buf.indexOf(needle, from, 'latin1');
  if (i < 0) throw new Error(`no ${needle} in ${file}`);
  return i + needle.length;
};
const nodesAt = at('"nodes":[');
const meta = JSON.parse(`${buf.toString('utf8', 0, nodesAt - '"nodes":['.length).replace(/,\s*$/, '')}}`) as {
  snapshot: {
    meta: { node_fields: string[]; node_types: [string[]]; edge_fields: string[]; edge_types: [string[]] };
    node_count: number;
    edge_count: number;
  };
};
function ints(from: number, count: number): Uint32Array {
  const out = new Uint32Array(count);
  let n = 0;
  let v = 0;
  let inNum = false;
  for (let i = from; n < count; i++) {
    const c = buf[i] as number;
    if (c >= 48 && c <= 57) {
      v = v * 10 + c - 48;
      inNum = true;
    } else if (inNum) {
      out[n++] = v;
      v = 0;
      inNum = false;
    }
  }
  return out;
}
const m = meta.snapshot.meta;
const NF = m.node_fields.length;
const EF = m.edge_fields.length;
const nodes = ints(nodesAt, meta.snapshot.node_count * NF);
const edges = ints(at('"edges":['), meta.snapshot.edge_count * EF);
const stringsAt = at('"strings":[');
const strings = JSON.parse(`[${buf.toString('utf8', stringsAt, buf.lastIndexOf(']'))}]`) as string[];
const [nType, nName, nSelf, nEdges] = ['type', 'name', 'self_size', 'edge_count'].map((f) =>
  m.node_fields.indexOf(f),
) as [number, number, number, number];
const [eType, eName, eTo] = ['type', 'name_or_index', 'to_node'].map((f) => m.edge_fields.indexOf(f)) as [
  number,
  number,
  number,
];
const nodeTypes = m.node_types[0];
const edgeTypes = m.edge_types[0];
const count = meta.snapshot.node_count;
const firstEdge = new Uint32Array(count + 1);
for (let i = 0; i < count; i++) firstEdge[i + 1] = (firstEdge[i] as number) + (nodes[i * NF + nEdges] as number);
const typeOf = (n: number) => nodeTypes[nodes[n * NF + nType] as number] as string;
const nameOf = (n: number) => strings[nodes[n * NF + nName] as number] as string;
const selfOf = (n: number) => nodes[n * NF + nSelf] as number;
const label = (n: number) => {
  const t = typeOf(n);
  const name = nameOf(n);
  return t === 'object' || t === 'closure' || t === 'synthetic' ? name.slice(0, 60) : `(${t})`;
};
const mib = (b: number) => (b / 1048576).toFixed(1);

// By constructor / type.
const by = new Map<string, { count: number; bytes: number }>();
let total = 0;
for (let n = 0; n < count; n++) {
  const k = label(n);
  const e = by.get(k) ?? { count: 0, bytes: 0 };
  e.count++;
  e.bytes += selfOf(n);
  total += selfOf(n);
  by.set(k, e);
}
const lines: string[] = [
  `# ${file}: ${count} nodes, ${mib(total)} MiB self`,
  '',
  '| constructor / type | count | self MiB | bytes each |',
  '|---|---|---|---|',
];
for (const [k, e] of [...by].sort((a, b) => b[1].bytes - a[1].bytes).slice(0, TOP))
  lines.push(`| ${k} | ${e.count} | ${mib(e.bytes)} | ${Math.round(e.bytes / e.count)} |`);

// Owners: breadth-first from the root, weak and shortcut edges skipped.
const parent = new Int32Array(count).fill(-1);
const parentEdge = new Int32Array(count).fill(-1);
const order = new Uint32Array(count);
const weak = edgeTypes.indexOf('weak');
const shortcut = edgeTypes.indexOf('shortcut');
parent[0] = 0;
let head = 0;
let tail = 0;
order[tail++] = 0;
while (head < tail) {
  const n = order[head++] as number;
  for (let e = firstEdge[n] as number; e < (firstEdge[n + 1] as number); e++) {
    const t = edges[e * EF + eType] as number;
    if (t === weak || t === shortcut) continue;
    const to = (edges[e * EF + eTo] as number) / NF;
    if (parent[to] !== -1) continue;
    parent[to] = n;
    parentEdge[to] = e;
    order[tail++] = to;
  }
}
const tree = new Float64Array(count);
for (let i = tail - 1; i >= 0; i--) {
  const n = order[i] as number;
  tree[n] = (tree[n] as number) + selfOf(n);
  if (n !== 0) tree[parent[n] as number] = (tree[parent[n] as number] as number) + tree[n];
}
const edgeName = (e: number) => {
  const t = edgeTypes[edges[e * EF + eType] as number];
  const v = edges[e * EF + eName] as number;
  return t === 'element' || t === 'hidden' ? `[${v}]` : String(strings[v]).slice(0, 40);
};
const path = (n: number) => {
  const parts: string[] = [];
  for (let x = n, d = 0; x !== 0 && d < 12; x = parent[x] as number, d++)
    parts.unshift(`${label(x)}${parentEdge[x]! >= 0 ? ` .${edgeName(parentEdge[x] as number)}` : ''}`);
  return parts.join(' > ');
};
// Aggregate trees by (owner path's last 3 labels, own label) so 100 000 sibling objects show as one row.
const groups = new Map<string, { count: number; bytes: number; example: number }>();
for (let i = 1; i < tail; i++) {
  const n = order[i] as number;
  if ((tree[n] as number) < 64) continue;
  const p = parent[n] as number;
  if ((tree[p] as number) - (tree[n] as number) < 0) continue;
  const key = `${label(p)} .${edgeName(parentEdge[n] as number).replace(/^\[\d+\]$/, '[i]')} -> ${label(n)}`;
  const g = groups.get(key) ?? { count: 0, bytes: 0, example: n };
  g.count++;
  g.bytes += tree[n] as number;
  groups.set(key, g);
}
lines.push(
  '',
  `Reached from the roots: ${tail} nodes. Owner trees (sum of the breadth-first subtrees of objects reached by that edge):`,
  '',
);
lines.push('| owner .edge -> object | objects | tree MiB | path of one |', '|---|---|---|---|');
for (const [k, g] of [...groups].sort((a, b) => b[1].bytes - a[1].bytes).slice(0, TOP * 2))
  lines.push(
    `| ${k.replaceAll('|', '/')} | ${g.count} | ${mib(g.bytes)} | ${path(g.example).replaceAll('|', '/').slice(-300)} |`,
  );
process.stdout.write(`${lines.join('\n')}\n`);
