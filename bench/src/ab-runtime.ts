// `npx tsx bench/src/ab-runtime.ts`: JSON.parse and JSON.stringify of the bid-request corpus (the work the
// bid path does per request before and after the auction) on this Node and on the engines' Node 24 (or
// AB_NODE=<path>), in alternating rounds, each round a fresh child process timed by its own CPU clock.
// Run with AB_CHILD=1 it is that child: it prints one JSON line of microseconds per request.
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { chooseEngineNode } from '@adnet/engine/engine-node';
import { makeCorpus } from './corpus.ts';

const ROUNDS = Number(process.env.AB_ROUNDS ?? 5);
const PASSES = 40;

interface Round {
  node: string;
  parseUs: number;
  stringifyUs: number;
}

function measure(): Round {
  const corpus = makeCorpus(1_000).map((b) => b.toString('utf8'));
  const cpuUs = () => {
    const u = process.cpuUsage();
    return u.user + u.system;
  };
  let sink = 0;
  // Warm-up pass: the optimizing compiler settles before timing.
  for (const s of corpus) sink += (JSON.parse(s) as { id: string }).id.length;
  const parsed = corpus.map((s) => JSON.parse(s) as unknown);
  let t = cpuUs();
  for (let p = 0; p < PASSES; p++) for (const s of corpus) sink += (JSON.parse(s) as { id: string }).id.length;
  const parseUs = (cpuUs() - t) / (PASSES * corpus.length);
  for (const o of parsed) sink += JSON.stringify(o).length;
  t = cpuUs();
  for (let p = 0; p < PASSES; p++) for (const o of parsed) sink += JSON.stringify(o).length;
  const stringifyUs = (cpuUs() - t) / (PASSES * corpus.length);
  if (sink === 0) throw new Error('nothing measured');
  return {
    node: process.version,
    parseUs: Math.round(parseUs * 100) / 100,
    stringifyUs: Math.round(stringifyUs * 100) / 100,
  };
}

if (process.env.AB_CHILD === '1') {
  process.stdout.write(JSON.stringify(measure()) + '\n');
} else {
  const other = process.env.AB_NODE ?? chooseEngineNode('auto').execPath;
  const script = fileURLToPath(import.meta.url);
  const run = (node: string): Round =>
    JSON.parse(
      execFileSync(node, ['--import', 'tsx', script], { env: { ...process.env, AB_CHILD: '1' }, encoding: 'utf8' }),
    ) as Round;
  const rounds: Round[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    // Alternate which goes first: the shared machine's load drifts within a round too.
    const pair = i % 2 === 0 ? [process.execPath, other] : [other, process.execPath];
    for (const node of pair) {
      const r = run(node);
      rounds.push(r);
      process.stdout.write(
        `round ${i + 1} ${r.node}: JSON.parse ${r.parseUs} us, JSON.stringify ${r.stringifyUs} us per request\n`,
      );
    }
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  for (const node of new Set(rounds.map((r) => r.node))) {
    const mine = rounds.filter((r) => r.node === node);
    process.stdout.write(
      `median ${node}: JSON.parse ${median(mine.map((r) => r.parseUs))} us, JSON.stringify ${median(mine.map((r) => r.stringifyUs))} us\n`,
    );
  }
}
