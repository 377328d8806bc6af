// `node --import tsx bench/src/heap-snapshot.ts [campaigns] [dir]`: one engine holding the bench world (3 creatives a
// campaign), under a short bid load (BENCH_HEAP_RATE bids/s, 500 by default, for BENCH_HEAP_MS, 3 000: a longer,
// faster one shows what the engine keeps per request), writes a heap snapshot to `dir` (default: a temporary directory), for
// bench/src/heap-breakdown.ts. Prints the engine's memory after a full collection.
import { closeSync, mkdirSync, mkdtempSync, openSync, readSync, readdirSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { child } from './child.ts';
import { makeCorpus } from './corpus.ts';
import { freePort, startBenchRedis } from './local-redis.ts';
import { httpRequest, runStep } from './load-generator.ts';
import type { Memory } from './loop-probe.ts';
import { rssMiB } from './proc-stats.ts';
import { seedWorld } from './world.ts';

const campaigns = Number(process.argv[2] ?? 100_000);
const dir = process.argv[3] ?? mkdtempSync(join(tmpdir(), 'adnet-heap-'));
mkdirSync(dir, { recursive: true });
const local = await startBenchRedis('adnet-bench-heap-');
await seedWorld(local.url, { campaigns, creativesPerCampaign: 3, advertisers: 500 });
const port = await freePort();
const { proc } = await child(
  'engine/src/main.ts',
  { REDIS_URL: local.url, PORT: String(port), METRICS_PORT: '0', LOG_LEVEL: 'warn', TRACKING_SECRET: 'b'.repeat(40) },
  [
    '--expose-gc',
    '--heapsnapshot-signal=SIGUSR2',
    `--diagnostic-dir=${dir}`,
    '--import',
    'tsx',
    '--import',
    './bench/src/loop-probe.ts',
  ],
);
while ((await fetch(`http://127.0.0.1:${port}/engine/readyz`)).status !== 200)
  await new Promise((r) => setTimeout(r, 50));
const bids = makeCorpus(1_000).map((b) => httpRequest('/openrtb/bid', b, { 'x-openrtb-version': '2.5' }));
await runStep({
  port,
  requests: bids,
  rate: Number(process.env.BENCH_HEAP_RATE ?? 500),
  durationMs: Number(process.env.BENCH_HEAP_MS ?? 3_000),
  connections: 16,
});
const pid = proc.pid ?? 0;
const rssBefore = rssMiB(pid);
const memory = await new Promise<Memory>((resolve) => {
  const on = (m: { type?: string }) => m.type === 'memory' && (proc.off('message', on), resolve(m as Memory));
  proc.on('message', on);
  proc.send({ type: 'memory' });
});
process.stderr.write(`${JSON.stringify({ campaigns, rssBeforeGcMiB: rssBefore, ...memory })}\n`);
proc.kill('SIGUSR2');
// The snapshot is written synchronously by the engine; done when the file ends as the format does.
for (;;) {
  await new Promise((r) => setTimeout(r, 2_000));
  const file = readdirSync(dir).find((f) => f.endsWith('.heapsnapshot'));
  if (!file) continue;
  const size = statSync(join(dir, file)).size;
  if (size < 2) continue;
  const fd = openSync(join(dir, file), 'r');
  const tail = Buffer.alloc(2);
  readSync(fd, tail, 0, 2, size - 2);
  closeSync(fd);
  if (tail.toString() === ']}') {
    process.stdout.write(`${join(dir, file)}\n`);
    break;
  }
}
const stop = (p: ChildProcess) => new Promise((r) => (p.once('exit', r), p.kill('SIGTERM')));
await stop(proc);
await local.stop();
