// `node --expose-gc --max-semi-space-size=256 --min-semi-space-size=256 --import tsx bench/src/alloc-bid.ts [checkout]`:
// bytes the OpenRTB bid handler of one tree allocates per request, over the ab-bid.ts world and corpus.
// Counted as the heap's growth over blocks of requests that ran without a collection (a young generation
// larger than a block keeps the scavenger out; a block that saw one is discarded). With ALLOC_PROFILE=N it
// then samples N requests with V8's sampling heap profiler (collected objects kept) and prints the
// allocation sites by bytes.
import { Session } from 'node:inspector/promises';
import type { HeapProfiler } from 'node:inspector';
import v8 from 'node:v8';
import { loadTree } from './ab-trees.ts';
import { makeCorpus } from './corpus.ts';
import { addSourceLists, configStateOf, generateWorld } from './world.ts';

const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with --expose-gc');

const world = generateWorld({ campaigns: 10_000, creativesPerCampaign: 3, advertisers: 500, deliveryRules: true });
const sourceLists = addSourceLists(world, {
  campaigns: 1_000,
  entries: 10_000,
  zone: 'benchzone01',
  siteId: 1,
  adjusted: 0.2,
});
const corpus = makeCorpus(1_000);
const state = configStateOf(world, sourceLists);

const tree = await loadTree(process.argv[2] ?? '.');
const handle = tree.bid.bidRoute(
  tree.fixture.bidPathContext(tree.index.buildIndex(state, '1-0'), { emit: () => undefined, engineId: 'bench' }),
);
const requests = corpus.map((body) => tree.fixture.bidRequestOf(body));
let answered = 0;
const pass = () => {
  for (const r of requests) if (handle(r).status === 200) answered++;
};
for (let w = 0; w < 20; w++) pass();

/** The young generation's collections so far, read from the new space's size (it only shrinks in a scavenge). */
const newSpaceUsed = () => v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space')?.space_used_size ?? 0;
const perBid: number[] = [];
for (let block = 0; block < 12; block++) {
  gc();
  const heap0 = process.memoryUsage().heapUsed;
  const young0 = newSpaceUsed();
  pass();
  const young1 = newSpaceUsed();
  const heap1 = process.memoryUsage().heapUsed;
  if (young1 < young0) continue; // a scavenge ran inside the block
  perBid.push((heap1 - heap0) / requests.length);
}
perBid.sort((a, b) => a - b);
console.log(
  `${process.version} ${process.argv[2] ?? '.'}: ${perBid.length} clean blocks of ${requests.length} requests, ${answered} answered in all; bytes per request: median ${Math.round(perBid[Math.floor(perBid.length / 2)] ?? NaN)}, min ${Math.round(perBid[0] ?? NaN)}`,
);

const profiled = Number(process.env.ALLOC_PROFILE ?? 0);
if (profiled > 0) {
  const session = new Session();
  session.connect();
  await session.post('HeapProfiler.enable');
  await session.post('HeapProfiler.startSampling', {
    samplingInterval: 256,
    includeObjectsCollectedByMajorGC: true,
    includeObjectsCollectedByMinorGC: true,
  });
  for (let k = 0; k < profiled; k++) {
    const r = requests[k % requests.length];
    if (r) handle(r);
  }
  const { profile } = await session.post('HeapProfiler.stopSampling');
  const sites = new Map<string, number>();
  const walk = (node: HeapProfiler.SamplingHeapProfileNode, path: string) => {
    const f = node.callFrame;
    const name = `${f.functionName || '(anonymous)'} ${f.url.replace(/^.*\/(engine|node_modules)\//, '$1/')}:${f.lineNumber + 1}`;
    // A builtin's bytes are named with the function that called it.
    const here = f.url === '' || f.url.startsWith('node:') ? `${name} < ${path}` : name;
    const self = node.selfSize;
    if (self > 0) sites.set(here, (sites.get(here) ?? 0) + self);
    for (const c of node.children) walk(c, f.url === '' || f.url.startsWith('node:') ? path : name);
  };
  walk(profile.head, '');
  const total = [...sites.values()].reduce((a, b) => a + b, 0);
  console.log(`sampled ${Math.round(total / profiled)} bytes per request; sites by bytes per request:`);
  for (const [site, bytes] of [...sites].sort((a, b) => b[1] - a[1]).slice(0, 30))
    console.log(`${(bytes / profiled).toFixed(0).padStart(7)}  ${site}`);
}
