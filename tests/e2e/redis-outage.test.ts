import { createHmac } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { budgetDay } from '@adnet/schemas/budget-day';
import type { EventFields } from '@adnet/schemas/events';
import { balanceKey, campaignPoolKey, ledgerKey } from '@adnet/schemas/redis-keys';
import { JOURNAL_PENDING_KEY } from '@adnet/schemas/wire/click-record';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, useTestApp } from '@adnet/test-support/admin';
import { eventually, startEngine, streamedEvents } from '@adnet/test-support/engine';
import type { TestEngine } from '@adnet/test-support/engine';
import { World } from '@adnet/test-support/world';

// The operator's worst day: Redis freezes (its process stopped) and later goes down, while visitors click
// ads served before. Every click is answered with the landing page within the deadline, every render beacon
// with its pixel; what could not be counted is journaled on each engine's disk and replayed when Redis is back:
// each rendered ad counted once, each valid click charged once, a duplicate refused, across two engines.

const fx = useTestApp();
let world: World;
let engines: TestEngine[] = [];
const journalRoot = mkdtempSync(join(tmpdir(), 'adnet-outage-journal-'));
const BROWSER = {
  'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/125.0 Safari/537.36',
};
const CPC_NANO = 400_000_000; // $0.40
/** What a visitor waits at most, with Redis hung or down (the deadline is 50 ms). */
const PATIENCE_MS = 1_000;

beforeAll(async () => {
  world = await World.create(fx.app);
  // Both engines journal under one root, each in a slot of its own, as `pnpm start`'s engines do.
  const env = { JOURNAL_DIR: journalRoot, REDIS_DEADLINE_MS: '50' };
  engines = [await startEngine(fx.redis.url, env), await startEngine(fx.redis.url, env)];
});
afterAll(async () => {
  for (const e of engines) await e.stop();
});

interface Served {
  click: string;
  beacon: string;
}

async function timed(url: string): Promise<{ status: number; location: string; ms: number }> {
  const started = performance.now();
  const r = await fetch(url, { headers: BROWSER, redirect: 'manual', signal: AbortSignal.timeout(5_000) });
  await r.arrayBuffer();
  return { status: r.status, location: r.headers.get('location') ?? '', ms: performance.now() - started };
}

const on = (url: string, engine: TestEngine) => url.replace(/^http:\/\/[^/]+/, engine.base);
const clickOn = (ad: Served, engine: TestEngine, fp: string) =>
  timed(`${on(ad.click, engine)}?ttc=1500&x=10&y=12&focus=1&fp=fingerprint-${fp}`);

describe('clicks and beacons through a Redis outage', () => {
  it('redirects every click within the deadline while Redis hangs and while it is down, then counts and charges each once', async () => {
    const adv = await world.advertiser(100_000);
    const { campaign } = await world.campaign(adv, {
      format: 'native',
      bid_type: 'cpc',
      bid_usd: 0.4,
      daily_budget_usd: 50,
    });
    const zone = await world.zone({ format: 'native' });
    await eventually(() => engines.every((e) => e.engine.mirror.index?.zones.get(zone.subid)?.serving === true));
    await eventually(async () =>
      (
        await Promise.all(engines.map((e) => fetch(`${e.base}/imp?z=${zone.subid}&fp=probe`, { headers: BROWSER })))
      ).every((r) => r.status === 200),
    );
    const ads: Served[] = [];
    for (let i = 0; i < 11; i++) {
      const r = await fetch(`${engines[i % 2]?.base}/imp?z=${zone.subid}&fp=visitor-${i}`, { headers: BROWSER });
      expect(r.status).toBe(200);
      const body = (await r.json()) as { click_url: string; beacon_url: string };
      ads.push({ click: body.click_url, beacon: body.beacon_url });
    }
    const [e0, e1] = engines as [TestEngine, TestEngine];
    // Ads 0-8 render while Redis is up; ads 9 and 10 render while it is down.
    for (const ad of ads.slice(0, 9)) expect((await timed(ad.beacon)).status).toBe(200);
    const answers: { status: number; location: string; ms: number }[] = [];
    const landing = (a: { location: string }) => a.location.startsWith('https://shop.example.com/p?c=');

    // Up: two clicks, counted as they come.
    for (const i of [0, 1]) answers.push(await clickOn(ads[i] as Served, engines[i % 2] as TestEngine, `up${i}`));

    // Frozen: four clicks over both engines, and ad 2 clicked again on the other engine (a duplicate).
    fx.redis.freeze();
    try {
      for (const i of [2, 3, 4, 5])
        answers.push(await clickOn(ads[i] as Served, engines[i % 2] as TestEngine, `frozen${i}`));
      answers.push(await clickOn(ads[2] as Served, e1, 'frozenagain'));
      // A forged link is refused at once, never journaled.
      const forged = await timed(`${e0.base}/c/not-a-ticket/tok`);
      expect(forged.status).toBe(404);
      expect(forged.ms).toBeLessThan(PATIENCE_MS);
    } finally {
      fx.redis.thaw();
    }
    await eventually(() => engines.every((e) => e.engine.journal.settled() && e.engine.journal.health.up), 15_000);

    // Down: three clicks and a render beacon, then Redis comes back from its AOF.
    await fx.redis.halt();
    try {
      for (const i of [6, 7, 8])
        answers.push(await clickOn(ads[i] as Served, engines[i % 2] as TestEngine, `down${i}`));
      const beacon = await timed(on((ads[9] as Served).beacon, e0));
      expect(beacon.status).toBe(200);
      expect(beacon.ms).toBeLessThan(PATIENCE_MS);
      answers.push(await clickOn(ads[9] as Served, e1, 'down9'));
      expect((await timed(on((ads[10] as Served).beacon, e0))).status).toBe(200);
    } finally {
      await fx.redis.start();
    }
    // Ad 10 is clicked on the other engine as soon as Redis is back, before the engine that holds its render
    // beacon has replayed it: the click is left to the replay, not refused `not_rendered`.
    answers.push(await clickOn(ads[10] as Served, e1, 'back10'));
    // A tracker that reports a sale for a click of the outage before its replay is asked to retry, not told the
    // click is unknown (it would drop the conversion); once the click is replayed, the same postback is taken.
    const secret = String((await call(fx.app, 'GET', '/api/adv/profile', { token: adv.token })).body.postback_secret);
    const sale = {
      click_id: new URL(answers[answers.length - 3]?.location ?? '').searchParams.get('c') ?? '',
      payout: '250',
      status: 'approved',
      txid: 'outage-sale',
    };
    const report = () =>
      fetch(`${fx.app.base}/postback/in`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          ...sale,
          secret,
          sig: createHmac('sha256', secret).update(`${sale.click_id}|250|approved|outage-sale`).digest('hex'),
        }),
      });
    await eventually(async () => (await fx.app.svc.redis.exists(JOURNAL_PENDING_KEY)) === 1, 10_000);
    const early = await report();
    expect(early.status, await early.text()).toBe(503);
    expect(early.headers.get('retry-after')).toBe('30');
    await eventually(() => engines.every((e) => e.engine.journal.settled() && e.engine.journal.health.up), 15_000);
    const later = await report();
    expect(later.status, await later.text()).toBe(200);

    // Every visitor reached the landing page, within the patience of a person.
    expect(answers.map((a) => a.status)).toEqual(answers.map(() => 302));
    expect(answers.every(landing)).toBe(true);
    expect(Math.max(...answers.map((a) => a.ms))).toBeLessThan(PATIENCE_MS);

    await Promise.all(engines.map((e) => e.engine.events.flush()));
    await Promise.all(engines.map((e) => e.engine.budget.flush()));
    const events = (await streamedEvents(fx.app.svc.redis)).filter((e: EventFields) => e.campaign_id === campaign.id);
    const clicks = events.filter((e) => e.type === 'click');
    const impressions = events.filter((e) => e.type === 'impression');
    // Each rendered ad counted once; each ad's first click valid and charged once; the second click on ad 2 refused.
    const seen = JSON.stringify(
      events.map((e) => [e.type, e.bid_id?.slice(0, 4), e.reason, e.engine?.slice(0, 4), (e.ts ?? 0) % 100_000]),
    );
    expect(impressions, seen).toHaveLength(11);
    expect(new Set(impressions.map((e) => e.bid_id)).size).toBe(11);
    const charged = clicks.filter((e) => e.charge_nano === CPC_NANO && e.invalid === false);
    expect(charged, seen).toHaveLength(11);
    expect(new Set(charged.map((e) => e.bid_id)).size).toBe(11);
    expect(clicks.filter((e) => e.invalid)).toEqual([expect.objectContaining({ reason: 'duplicate', charge_nano: 0 })]);
    expect(clicks).toHaveLength(12);
    // The money agrees: the pool, the ledger and the balance took exactly the eleven charges.
    const pool = await fx.app.svc.redis.hgetall(campaignPoolKey(campaign.id, budgetDay(Date.now())));
    expect(Number(pool.spent)).toBe(11 * CPC_NANO);
    const debits = (await fx.app.svc.redis.xrange(ledgerKey(adv.id), '-', '+'))
      .map(([, f]) => f)
      .filter((f) => f[1] === 'debit');
    const debited = -debits.reduce((s, f) => s + Number(f[3]), 0);
    expect(debited).toBe(440);
    expect(Number(await fx.app.svc.redis.get(balanceKey(adv.id)))).toBe(100_000 - 440);

    const totals = engines.map((e) => e.engine.journal.replayer.totals);
    const journaled = engines.reduce((n, e) => n + e.engine.journal.journal.appended, 0);
    const replayed = totals.reduce((n, t) => n + t.replayed, 0);
    // Every request answered during the outage was journaled (nine clicks and two beacons): those whose work still
    // ran once Redis thawed or came back were marked done there, the rest were replayed. More are journaled when
    // the click after it came before ad 10's beacon was replayed, or a request of the up phases passed its deadline
    // on a busy machine.
    expect(journaled).toBeGreaterThanOrEqual(11);
    // This campaign stops here, so the next case's zone serves its own.
    await call(fx.app, 'POST', `/api/adv/campaigns/${campaign.id}/pause`, { token: adv.token });
    await eventually(() =>
      engines.every((e) => e.engine.mirror.index?.campaigns.get(campaign.id)?.status !== 'active'),
    );
    console.log(
      `outage: ${answers.length} clicks redirected (max ${Math.round(Math.max(...answers.map((a) => a.ms)))} ms), ${journaled} requests journaled, ` +
        `${replayed} replayed, ${charged.length} clicks charged, ${clicks.length - charged.length} refused (duplicate)`,
    );
  });
});

describe('a journal left by an engine that is gone', () => {
  it('is replayed by the next engine to start, skipping a torn last record and garbage with a log line each', async () => {
    const { pendingRequests } = await import('@adnet/schemas/wire/request-journal');
    const adv = await world.advertiser(100_000);
    const { campaign } = await world.campaign(adv, {
      format: 'native',
      bid_type: 'cpc',
      bid_usd: 0.4,
      daily_budget_usd: 50,
    });
    const zone = await world.zone({ format: 'native' });
    await eventually(() =>
      engines.every((e) => e.engine.mirror.index?.campaigns.get(campaign.id)?.status === 'active'),
    );
    await eventually(
      async () =>
        (await fetch(`${engines[0]?.base}/imp?z=${zone.subid}&fp=probe2`, { headers: BROWSER })).status === 200,
    );
    const served = await Promise.all(
      [0, 1, 2].map(async (i) => {
        const r = await fetch(`${engines[0]?.base}/imp?z=${zone.subid}&fp=left-${i}`, { headers: BROWSER });
        return (await r.json()) as { click_url: string; beacon_url: string };
      }),
    );
    for (const ad of served) expect((await timed(ad.beacon_url)).status).toBe(200);
    // A journal of three clicks whose engine died: the last record torn mid-write, garbage between the first two.
    const root = mkdtempSync(join(tmpdir(), 'adnet-left-journal-'));
    const { encodeJournalRecord } = await import('@adnet/schemas/wire/request-journal');
    const { mkdirSync, writeFileSync } = await import('node:fs');
    const records = served.map((ad, i) => {
      const [, ticket, token] = /\/c\/([^/]+)\/([^/?]+)/.exec(ad.click_url) ?? [];
      return encodeJournalRecord({
        id: `gone-${i}`,
        route: 'click',
        at: Date.now() - 1_000,
        params: [ticket ?? '', token ?? ''],
        query: `ttc=1500&x=10&y=12&focus=1&fp=leftclick${i}`,
        ip: '127.0.0.1',
        viaProxy: false,
        userAgent: BROWSER['user-agent'],
      });
    });
    mkdirSync(join(root, 'slot-0'), { recursive: true });
    // The dead engine's lock names a pid that no process has.
    writeFileSync(join(root, 'slot-0', 'lock'), '2147483646');
    const text = `${records[0]}\u0000garbage line\n${records[1]}${(records[2] ?? '').slice(0, 50)}`;
    writeFileSync(join(root, 'slot-0', 'current.jnl'), text);
    expect(pendingRequests(text).pending).toHaveLength(2);
    const lines: string[] = [];
    const { pino } = await import('pino');
    const log = pino({ level: 'info' }, { write: (l: string) => void lines.push(l) });
    const next = await startEngine(fx.redis.url, { JOURNAL_DIR: root }, { log });
    try {
      // The garbage line, and the torn record (its line ended when the journal was opened again, so its checksum fails).
      await eventually(() => next.engine.journal.replayer.totals.replayed === 2, 10_000);
      expect(next.engine.journal.replayer.totals).toEqual({ replayed: 2, skipped: 2, dropped: 0 });
      expect(lines.filter((l) => l.includes('"journal.skipped"'))).toHaveLength(2);
      expect(readFileSync(join(root, 'slot-0', 'current.jnl'), 'utf8')).toBe('');
      await next.engine.events.flush();
      const clicks = (await streamedEvents(fx.app.svc.redis)).filter(
        (e: EventFields) => e.type === 'click' && e.campaign_id === campaign.id,
      );
      expect(clicks.map((e) => [e.invalid, e.charge_nano])).toEqual([
        [false, CPC_NANO],
        [false, CPC_NANO],
      ]);
    } finally {
      await next.stop();
    }
  });
});
