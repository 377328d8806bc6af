// `tsx bench/src/ab-adapt.ts <before-checkout> <after-checkout>`: the request adapter (engine/src/http/adapt.ts)
// of two trees behind one uWS app in this process, each with the bid route's options and a fixed JSON answer;
// wrk posts the bid corpus at each in turn (rounds alternated) and this process's CPU time per answered
// request is compared. What differs between the trees is only the transport's fixed cost per request:
// header and address reads, the objects per request, the status and header writes.
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import type * as Adapt from '@adnet/engine/adapt';
import { loadNativeUws } from '@adnet/engine/uws';
import { ROOT } from './child.ts';
import { makeCorpus } from './corpus.ts';

const SECONDS = Number(process.env.AB_SECONDS ?? 3);
const ROUNDS = Number(process.env.AB_ROUNDS ?? 6);
const run = promisify(execFile);

const load = (root: string) => import(`${resolve(root)}/engine/src/http/adapt.ts`) as Promise<typeof Adapt>;
const [before, after] = await Promise.all([load(process.argv[2] ?? '.'), load(process.argv[3] ?? '.')]);

const uws = loadNativeUws();
const app = uws.App();
// A bid response of the corpus's usual size, built per request as the bid route does.
const answer = {
  id: 'req-1',
  seatbid: [{ bid: [{ id: 'b1', impid: '1', price: 1.25, adm: '<div>'.padEnd(600, 'x') + '</div>', crid: '7' }] }],
};
const served = { a: 0, b: 0 };
function mount(m: typeof Adapt, prefix: 'a' | 'b'): void {
  const ctx: Adapt.RouteContext = {
    inFlight: new m.InFlight(),
    idPrefix: `ab-${prefix}`,
    onError: (what, err) => console.error(what, err),
  };
  m.addRoute(
    app,
    {
      method: 'post',
      pattern: `/${prefix}/openrtb/bid`,
      handler: (req) => {
        served[prefix]++;
        if (req.body.length === 0) return m.errorReply('bad_request', 'empty');
        return m.json(200, answer, { 'x-openrtb-version': '2.5' });
      },
      options: { maxBody: 64 * 1024, headers: ['x-openrtb-version', 'content-encoding'], query: false },
    },
    ctx,
  );
}
mount(before, 'a');
mount(after, 'b');

const port = await new Promise<number>((resolve, reject) =>
  app.listen('127.0.0.1', 0, (s) => (s ? resolve(uws.us_socket_local_port(s)) : reject(new Error('listen failed')))),
);
const dir = mkdtempSync(join(tmpdir(), 'ab-adapt-'));
const corpusFile = join(dir, 'corpus.txt');
writeFileSync(
  corpusFile,
  makeCorpus(500)
    .map((b) => b.toString('utf8'))
    .join('\n') + '\n',
);
const lua = join(ROOT, 'bench', 'wrk', 'post-corpus.lua');

async function round(prefix: 'a' | 'b'): Promise<number> {
  const n0 = served[prefix];
  const c0 = process.cpuUsage();
  await run('wrk', ['-t1', '-c32', `-d${SECONDS}s`, '-s', lua, `http://127.0.0.1:${port}/`], {
    env: { ...process.env, WRK_CORPUS: corpusFile, WRK_PATH: `/${prefix}/openrtb/bid` },
  });
  const c = process.cpuUsage(c0);
  return (c.user + c.system) / Math.max(1, served[prefix] - n0);
}

await round('a');
await round('b');
const a: number[] = [];
const b: number[] = [];
for (let r = 0; r < ROUNDS; r++) {
  const x = await round('a');
  const y = await round('b');
  a.push(x);
  b.push(y);
  console.log(`round ${r}: before ${x.toFixed(2)} us/req  after ${y.toFixed(2)} us/req  x${(y / x).toFixed(2)}`);
}
const median = (v: number[]) => [...v].sort((p, q) => p - q)[Math.floor(v.length / 2)] as number;
console.log(
  `median: before ${median(a).toFixed(2)} us  after ${median(b).toFixed(2)} us  x${median(a.map((x, i) => (b[i] as number) / x)).toFixed(2)}` +
    `  fastest: before ${Math.min(...a).toFixed(2)} us  after ${Math.min(...b).toFixed(2)} us`,
);
process.exit(0);
