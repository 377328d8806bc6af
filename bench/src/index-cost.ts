// `node --expose-gc --import tsx bench/src/index-cost.ts [campaigns]`: the engine index's memory and the
// synchronous cost of applying config changes to it, in one process without Redis or load (the part of
// bench:config's propagation the engine's event loop pays). The configuration is decoded from msgpack as
// the mirror holds it. Writes bench/results/index-cost.{json,md}.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { StoredCampaign } from '@adnet/schemas/api';
import type { Partner } from '@adnet/schemas/partners';
import { pack, unpack } from '@adnet/schemas/wire/msgpack';
import { mirrorValue } from '@adnet/schemas/wire/change-log';
import { buildIndex } from '@adnet/engine/engine-index';
import type { ConfigState, EngineIndex } from '@adnet/engine/engine-index';
import { updateIndex } from '@adnet/engine/index-update';
import type { ConfigChange } from '@adnet/engine/index-update';
import { ROOT } from './child.ts';
import { pageHeader } from './results-page.ts';
import { generateWorld } from './world.ts';

const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with node --expose-gc');
const heapMiB = () => {
  gc();
  gc();
  return Math.round(process.memoryUsage().heapUsed / 1048576);
};
const quantiles = (ms: number[]) => {
  const s = [...ms].sort((a, b) => a - b);
  const q = (p: number) => Math.round((s[Math.min(s.length - 1, Math.floor(p * s.length))] ?? 0) * 1000) / 1000;
  return { p50: q(0.5), p99: q(0.99), max: q(1) };
};

const sizes = (process.argv[2] ?? '10000,100000').split(',').map(Number);
const GROUP = 8;
const rows = [];
for (const campaigns of sizes) {
  const world = generateWorld({ campaigns, creativesPerCampaign: 3, advertisers: 500 });
  const blobs = { campaign: world.campaigns.map((c) => pack(c)), creative: world.creatives.map((c) => pack(c)) };
  const base = heapMiB();
  const state: ConfigState = {
    campaign: new Map(),
    creative: new Map(),
    partner: new Map(),
    site: new Map(),
    zone: new Map(),
    deal: new Map(),
  };
  for (const kind of ['campaign', 'creative'] as const)
    for (const b of blobs[kind]) {
      // Copied as the mirror decodes (schemas/src/wire/change-log.ts): msgpackr's sliced strings would hold more.
      const v = mirrorValue(unpack(b)) as { id: number };
      state[kind].set(v.id, v);
    }
  const stateMiB = heapMiB() - base;
  let t = performance.now();
  let index: EngineIndex = buildIndex(state, '1-0');
  const buildMs = Math.round(performance.now() - t);
  const indexMiB = heapMiB() - base - stateMiB;

  const apply = (changes: ConfigChange[]) => {
    const started = performance.now();
    index = updateIndex(index, state, changes, `${index.seq.split('-')[0]}-1`).index;
    return performance.now() - started;
  };
  const camp = (i: number): ConfigChange => {
    const c = state.campaign.get(1 + ((i * 7919) % campaigns)) as StoredCampaign;
    return { kind: 'campaign', id: c.id, op: 'put', value: { ...c, bid_micro_cents: c.bid_micro_cents + 1 } };
  };
  const single = { campaign: [] as number[], creative: [] as number[], partner: [] as number[], pause: [] as number[] };
  for (let i = 0; i < 2_000; i++) {
    single.campaign.push(apply([camp(i)]));
    const cr = world.creatives[(i * 104_729) % world.creatives.length] as { id: number };
    single.creative.push(
      apply([
        {
          kind: 'creative',
          id: cr.id,
          op: 'put',
          value: { ...(state.creative.get(cr.id) as object), weight: 1 + (i % 100) },
        },
      ]),
    );
    const p: Partner = { ...world.partner, id: 1_000 + (i % 50), allowed_ips: ['192.0.2.1'], status: 'active' };
    single.partner.push(apply([{ kind: 'partner', id: p.id, op: 'put', value: p }]));
    const c = state.campaign.get(1 + ((i * 31) % campaigns)) as StoredCampaign;
    single.pause.push(
      apply([
        { kind: 'campaign', id: c.id, op: 'put', value: { ...c, status: c.status === 'active' ? 'paused' : 'active' } },
      ]),
    );
  }
  // The mirror's catch-up applies groups of GROUP changes (engine/src/sync/config-mirror.ts).
  const groups: number[] = [];
  for (let g = 0; g < 1_000 / GROUP; g++)
    groups.push(apply(Array.from({ length: GROUP }, (_, k) => camp(10_000 + g * GROUP + k))));
  t = performance.now();
  buildIndex(state, '2-0');
  const rebuildMs = Math.round(performance.now() - t);
  const row = {
    campaigns,
    creatives: world.creatives.length,
    stateMiB,
    indexMiB,
    buildMs,
    rebuildMs,
    updateMs: Object.fromEntries(Object.entries(single).map(([k, v]) => [k, quantiles(v)])),
    groupMs: quantiles(groups),
  };
  process.stderr.write(`${JSON.stringify(row)}\n`);
  rows.push(row);
}
const out = join(ROOT, 'bench', 'results');
mkdirSync(out, { recursive: true });
writeFileSync(
  join(out, 'index-cost.json'),
  JSON.stringify({ date: new Date().toISOString(), node: process.version, rows }, null, 2) + '\n',
);
const md = [
  `# Index memory and update cost (${new Date().toISOString()})`,
  '',
  ...pageHeader('node --expose-gc --import tsx bench/src/index-cost.ts'),
  '',
  `One process, no Redis, no load: heap after a full GC; times of the synchronous update (2 000 changes of each kind, one at a time; 1 000 campaign changes in groups of ${GROUP}, as the mirror applies a catch-up).`,
  '',
  `| campaigns | creatives | config MiB | index MiB | full build ms | campaign change p50/p99/max ms | creative change | campaign paused/resumed | partner change | group of ${GROUP} campaign changes |`,
  '|---|---|---|---|---|---|---|---|---|---|',
  ...rows.map((r) => {
    const f = (q: { p50: number; p99: number; max: number }) => `${q.p50} / ${q.p99} / ${q.max}`;
    const u = r.updateMs as Record<string, { p50: number; p99: number; max: number }>;
    return `| ${r.campaigns} | ${r.creatives} | ${r.stateMiB} | ${r.indexMiB} | ${r.buildMs} (again: ${r.rebuildMs}) | ${f(u.campaign!)} | ${f(u.creative!)} | ${f(u.pause!)} | ${f(u.partner!)} | ${f(r.groupMs)} |`;
  }),
  '',
].join('\n');
writeFileSync(join(out, 'index-cost.md'), md);
process.stdout.write(md);
