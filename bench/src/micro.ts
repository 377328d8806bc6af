// `pnpm bench:micro`: tinybench micro-benchmarks of the hot path's parts, on the same world as the load run.
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildIndex } from '@adnet/engine/engine-index';
import { bidRoute } from '@adnet/engine/bid-route';
import { bidPathContext, bidRequestOf } from '@adnet/engine/context-fixture';
import { parseBidRequest } from '@adnet/engine/parse-request';
import { pack } from '@adnet/schemas/wire/msgpack';
import { Bench } from 'tinybench';
import { makeCorpus } from './corpus.ts';
import { pageHeader } from './results-page.ts';
import { configStateOf, generateWorld } from './world.ts';

const world = generateWorld({ campaigns: 10_000, creativesPerCampaign: 3, advertisers: 500 });
const state = configStateOf(world);
const corpus = makeCorpus(1_000);
const index = buildIndex(state, '1-0');
// Half the world's campaigns pace evenly (world.ts). Held to half their auctions, as the pacer holds a
// campaign ahead of its pace, so the pacing filter's draw is on the measured path (at rate 1 it is one
// comparison).
for (const [id, pace] of index.paces) if (index.campaigns.get(id)?.pacing === 'even') pace.rate = 0.5;
const events: unknown[] = [];
const ctx = bidPathContext(index, {
  emit: (e) => void (events.length > 10_000 ? (events.length = 0) : events.push(e)),
  engineId: 'bench',
});
const handler = bidRoute(ctx);
const sampleEvents = Array.from({ length: 500 }, (_, i) => ({
  id: `e-${i}`,
  type: 'bid',
  ts: Date.now(),
  engine: 'bench',
  auction_id: `a-${i}`,
  campaign_id: i,
  creative_id: i,
  price_micro_cents: 150_000,
  country: 'us',
}));

let i = 0;
const bench = new Bench({ time: 1_000 });
bench
  .add('build index (10k campaigns, 30k creatives)', () => void buildIndex(state, '1-0'))
  .add('parse + check an OpenRTB request', () => void parseBidRequest(corpus[i++ % corpus.length] as Buffer))
  .add(
    'whole bid handler (parse, auction, response)',
    () => void handler(bidRequestOf(corpus[i++ % corpus.length] as Buffer)),
  )
  .add('encode a batch of 500 events (msgpack)', () => void pack(sampleEvents));
await bench.run();

const us = (ms: number | undefined) => Math.round((ms ?? 0) * 100_000) / 100;
const rows = bench.tasks.map((t) => {
  const r = t.result && 'latency' in t.result ? t.result : undefined;
  return {
    name: t.name,
    opsPerSec: Math.round(r?.throughput.mean ?? 0),
    meanUs: us(r?.latency.mean),
    p99Us: us(r?.latency.p99),
  };
});
const out = join(fileURLToPath(new URL('../results', import.meta.url)));
mkdirSync(out, { recursive: true });
const date = new Date().toISOString();
writeFileSync(join(out, 'micro.json'), JSON.stringify({ date, node: process.version, rows }, null, 2) + '\n');
const md = [
  `# Micro-benchmarks (${date})`,
  '',
  ...pageHeader('npx -y pnpm@10.34.8 bench:micro'),
  '',
  `Machine: ${cpus().length} CPUs (${cpus()[0]?.model}), Node ${process.version}; one process, no Redis, no HTTP.`,
  'World: 10000 campaigns, 30000 creatives, 500 advertisers (the half of the campaigns that paces evenly held to half its auctions); corpus: 1000 OpenRTB requests.',
  '',
  '| what | ops/s | mean us | p99 us |',
  '|---|---|---|---|',
  ...rows.map((r) => `| ${r.name} | ${r.opsPerSec} | ${r.meanUs} | ${r.p99Us} |`),
  '',
].join('\n');
writeFileSync(join(out, 'micro.md'), md);
process.stdout.write(md);
