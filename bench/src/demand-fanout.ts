// `tsx bench/src/demand-fanout.ts`: what the supply side's fan-out costs /imp. The real /imp handler, the
// real DSP client (kept-alive HTTP) and three demand partners in another process (bench/src/mock-dsps.ts).
//  1. latency: /imp with no demand partner, then with three answering in 20-80 ms (p50, p99);
//  2. throughput: partners answering at once (204), as many auctions in flight as it takes; outgoing
//     bid requests per second of this process's CPU time (one engine is one process on one core).
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import type { DemandPartner } from '@adnet/schemas/demand';
import { bidPathContext } from '@adnet/engine/context-fixture';
import { CircuitBreaker } from '@adnet/engine/breaker';
import { DemandStats } from '@adnet/engine/demand-stats';
import { DspClient } from '@adnet/engine/dsp-client';
import { Notifier } from '@adnet/engine/notices';
import type { SupplyDeps } from '@adnet/engine/supply';
import type { DemandWin } from '@adnet/engine/win-store';
import { impRoute } from '@adnet/engine/widget-serve-route';
import { buildIndex } from '@adnet/engine/engine-index';
import { PartnerLimiter } from '@adnet/engine/partner-limiter';
import { ZoneRequestRate } from '@adnet/engine/zone-request-rate';
import { impRequest, impState } from './imp-world.ts';

const now = new Date().toISOString();
let n = 0;
const request = () => impRequest(n++);

async function dsps(count: number, min: number, max: number): Promise<{ ports: number[]; stop(): void }> {
  // node itself (not npx) so that stopping the child stops the servers.
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', 'bench/src/mock-dsps.ts', String(count), String(min), String(max)],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  const line = await new Promise<string>((r) => createInterface({ input: child.stdout }).once('line', r));
  return { ports: JSON.parse(line) as number[], stop: () => child.kill() };
}

function handler(ports: number[]) {
  const partners: DemandPartner[] = ports.map((port, i) => ({
    id: i + 1,
    name: `dsp${i + 1}`,
    endpoint: `http://127.0.0.1:${port}/bid`,
    qps_limit: 1_000_000,
    timeout_ms: 150,
    formats: ['banner'],
    countries: [],
    openrtb_version: '2.5',
    status: 'active',
    created_at: now,
    updated_at: now,
  }));
  const state = impState({ demand_partner: new Map(partners.map((p) => [p.id, p])) });
  const index = buildIndex(state, '1-0');
  const client = new DspClient({ allowLoopback: true });
  const wins = new Map<string, DemandWin>();
  const stats = new DemandStats();
  const demand: SupplyDeps = {
    client,
    breaker: new CircuitBreaker(),
    limiter: new PartnerLimiter(1),
    stats,
    notifier: new Notifier({ claim: () => Promise.resolve(true), finish: () => Promise.resolve() }, client),
    wins: { save: (id, w) => Promise.resolve(void wins.set(id, w)), load: (id) => Promise.resolve(wins.get(id)) },
    secret: 's'.repeat(40),
    baseUrl: 'http://127.0.0.1:8080',
    sellerDomain: 'adnet.example',
    budget: { tryTake: () => true, giveBack: () => undefined },
    now: () => performance.now(),
  };
  // Distinct visitors: the request-rate limits are not what is measured here.
  const zoneRequests = new ZoneRequestRate({
    perAddressPerMinute: 1e9,
    perFingerprintPerMinute: 1e9,
    maxKeys: 1_000_000,
  });
  const ctx = bidPathContext(index, { demand, emit: () => undefined, zoneRequests });
  const route = impRoute(ctx);
  return { route, client, stats, requests: () => partners.reduce((s, p) => s + stats.peek(p.id, 'requests'), 0) };
}

const pct = (xs: number[], p: number) =>
  xs.slice().sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))] ?? 0;

async function latency(ports: number[], total: number, concurrency: number) {
  const h = handler(ports);
  const times: number[] = [];
  let ok = 0;
  let partnerWins = 0;
  const worker = async () => {
    while (times.length < total) {
      const t = performance.now();
      const reply = await h.route(request());
      times.push(performance.now() - t);
      if (reply.status === 200) ok++;
      if (typeof reply.body === 'string' && reply.body.includes('"demand"')) partnerWins++;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  h.client.close();
  return { p50: pct(times, 50), p99: pct(times, 99), max: Math.max(...times), ok, partnerWins, n: times.length };
}

async function throughput(ports: number[], seconds: number, concurrency: number) {
  const h = handler(ports);
  const end = performance.now() + seconds * 1000;
  // Warm the connections first.
  await Promise.all(Array.from({ length: concurrency }, () => Promise.resolve(h.route(request()))));
  const before = h.requests();
  const cpu = process.cpuUsage();
  const t0 = performance.now();
  const worker = async () => {
    while (performance.now() < end) await h.route(request());
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  const wall = (performance.now() - t0) / 1000;
  const used = process.cpuUsage(cpu);
  const cpuSeconds = (used.user + used.system) / 1e6;
  const sent = h.requests() - before;
  h.client.close();
  return { sent, wall, cpuSeconds, perWallSecond: sent / wall, perCpuSecond: sent / cpuSeconds };
}

const slow = await dsps(3, 20, 80);
const total = Number(process.env.FANOUT_IMPS ?? 3_000);
const none = await latency([], total, 1);
console.error('latency without partners done');
const three = await latency(slow.ports, total, 20);
console.error('latency with partners done');
slow.stop();
const fast = await dsps(3, 0, 0);
const rate = await throughput(
  fast.ports,
  Number(process.env.FANOUT_SECONDS ?? 8),
  Number(process.env.FANOUT_CONCURRENCY ?? 32),
);
fast.stop();
const ms = (x: number) => x.toFixed(2);
console.log(
  `latency, no demand partner:  p50 ${ms(none.p50)} ms  p99 ${ms(none.p99)} ms  (${none.n} imps, ${none.ok} served)`,
);
console.log(
  `latency, 3 partners 20-80 ms: p50 ${ms(three.p50)} ms  p99 ${ms(three.p99)} ms  max ${ms(three.max)} ms  (${three.n} imps, ${three.partnerWins} won by a partner)`,
);
console.log(`added by the fan-out:         p50 +${ms(three.p50 - none.p50)} ms  p99 +${ms(three.p99 - none.p99)} ms`);
console.log(
  `outgoing bid requests: ${rate.sent} in ${rate.wall.toFixed(1)} s wall, ${rate.cpuSeconds.toFixed(1)} s CPU = ${Math.round(rate.perWallSecond)}/s wall, ${Math.round(rate.perCpuSecond)}/s per core (CPU second)`,
);
process.exit(0);
