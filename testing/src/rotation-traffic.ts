import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import type { Account } from './admin.ts';
import { eventually, startEngine } from './engine.ts';
import type { TestEngine } from './engine.ts';
import type { World } from './world.ts';

const UA = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/125.0 Safari/537.36';

/** An engine that refreshes rotation counts often enough for a test, and takes each visitor's address from the proxy. */
const ROTATION_ENGINE_ENV = { ROTATION_REFRESH_MS: '200', TRUSTED_PROXIES: '127.0.0.1' };

/** An engine for rotation tests, returned once it serves `zone` with the campaign's two creatives (stopped if it never does). */
export async function startRotationEngine(redisUrl: string, zone: string): Promise<TestEngine> {
  const engine = await startEngine(redisUrl, ROTATION_ENGINE_ENV);
  try {
    await eventually(
      () =>
        engine.engine.mirror.index?.zones.get(zone)?.serving === true &&
        engine.engine.mirror.index.candidateCount === 2,
    );
  } catch (e) {
    await engine.stop();
    throw e;
  }
  return engine;
}

/** The smallest rotation: one well-funded native campaign with creatives "Creative A" and "Creative B", and a native zone. */
export async function twoCreativeCampaign(
  world: World,
): Promise<{ adv: Account; campaignId: number; creatives: { a: number; b: number }; zone: string }> {
  const adv = await world.advertiser(1_000_000);
  const made = await world.campaign(
    adv,
    { format: 'native', bid_usd: 2, daily_budget_usd: 1_000 },
    { title: 'Creative A' },
  );
  const campaignId = made.campaign.id;
  const b = await world.creative(adv, campaignId, 'native', { title: 'Creative B' });
  const zone = (await world.zone({ format: 'native' })).subid;
  return { adv, campaignId, creatives: { a: made.creativeId, b }, zone };
}

interface Served {
  creative: { title: string };
  beacon_url: string;
  click_url: string;
}

/**
 * Ad requests from distinct visitors to a zone, each ad rendered; `clickRate` says, per title, which
 * share of its ads are clicked (deterministic: every k-th ad of a title). Requests go round-robin over
 * `engines`. Returns how often each title served.
 */
export class RotationTraffic {
  private visitor = 0;
  private readonly servedSoFar: Record<string, number> = {};

  constructor(
    private readonly engines: TestEngine[],
    private readonly zone: string,
    /** Visitors get addresses 10.<net>.x.y, so two files running at once use distinct ones. */
    private readonly net: number,
  ) {}

  async run(
    n: number,
    clickRate: Record<string, number> = {},
    engines: TestEngine[] = this.engines,
  ): Promise<Record<string, number>> {
    const seen: Record<string, number> = {};
    for (let i = 0; i < n; i++) {
      const v = ++this.visitor;
      const base = (engines[i % engines.length] as TestEngine).base;
      const headers = { 'user-agent': UA, 'x-forwarded-for': `10.${this.net}.${(v >> 8) & 255}.${v & 255}` };
      const r = await fetch(`${base}/imp?z=${this.zone}&fp=visitor-${v}-fp`, { headers });
      if (r.status !== 200) continue;
      const ad = (await r.json()) as Served;
      const title = ad.creative.title;
      seen[title] = (seen[title] ?? 0) + 1;
      await fetch(ad.beacon_url, { headers });
      const rate = clickRate[title] ?? 0;
      this.servedSoFar[title] = (this.servedSoFar[title] ?? 0) + 1;
      if (rate > 0 && this.servedSoFar[title] % Math.round(1 / rate) === 0) {
        await fetch(`${ad.click_url}?ttc=1500&x=10&y=10&focus=1&fp=visitor-${v}-fp`, { headers, redirect: 'manual' });
      }
    }
    return seen;
  }
}

/** One phase of a rotation test: how many ads served and each creative's share of them. */
export interface RotationPhase {
  phase: string;
  served: number;
  shares: Record<string, number>;
}

export function phaseOf(phase: string, seen: Record<string, number>): RotationPhase {
  const served = Object.values(seen).reduce((s, n) => s + n, 0);
  const shares = Object.fromEntries(
    Object.entries(seen)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([title, n]) => [title, Math.round((n / served) * 1000) / 1000]),
  );
  return { phase, served, shares };
}

export const ROTATION_RESULTS = new URL('../../bench/results/rotation-shares.json', import.meta.url);

/**
 * Prints one test file's phases and, with RECORD_ROTATION_SHARES=1, writes them into bench/results/rotation-shares.json
 * (other files' entries kept): a plain test run leaves the committed results alone.
 */
export function recordPhases(file: string, phases: RotationPhase[]): void {
  for (const p of phases)
    console.log(`rotation ${file} · ${p.phase}: ${p.served} served, shares ${JSON.stringify(p.shares)}`);
  if (process.env.RECORD_ROTATION_SHARES !== '1') return;
  let all: Record<string, RotationPhase[]> = {};
  try {
    all = JSON.parse(readFileSync(ROTATION_RESULTS, 'utf8')) as Record<string, RotationPhase[]>;
  } catch {
    // First run: no file yet.
  }
  all[file] = phases;
  mkdirSync(new URL('.', ROTATION_RESULTS), { recursive: true });
  writeFileSync(ROTATION_RESULTS, `${JSON.stringify(all, null, 2)}\n`);
}
