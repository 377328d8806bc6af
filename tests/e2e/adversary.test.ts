import { budgetDay } from '@adnet/schemas/budget-day';
import type { EventFields } from '@adnet/schemas/events';
import type { BidResponse } from '@adnet/schemas/openrtb';
import { balanceKey, campaignPoolKey } from '@adnet/schemas/redis-keys';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, useTestApp } from './support/admin.ts';
import type { Account } from './support/admin.ts';
import { eventually, postBid, startEngine, streamedEvents } from './support/engine.ts';
import type { TestEngine } from './support/engine.ts';
import { ingestAll } from './support/ingest-all.ts';
import { World, bannerRequest } from './support/world.ts';

// The adversary the money attracts, at scale: a botnet (10 000 addresses, one browser user agent)
// farms 10 000 tickets from /imp on two engines behind our proxy, fires every render beacon from the
// address it was served to, replays each beacon and its viewable beacon through the other engine,
// clicks every ad with valid-looking parameters on both engines, and replays a partner's win notices
// and pixels. Whatever it does, no campaign spends past its daily budget (stated bound: zero), no
// balance goes below zero, every ticket is counted at most once, and the publisher is credited
// exactly its share of what was charged.

const fx = useTestApp({ INGEST_FLUSH_MS: '100' }, { clickhouse: true, parts: ['ingester'] });
let world: World;
let engines: TestEngine[] = [];
const UA = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/125.0 Safari/537.36';
const TICKETS = 10_000;
const NANO_PER_CENT = 10_000_000;

/** Runs `jobs` with at most `width` at a time. */
async function inParallel<T>(count: number, width: number, job: (i: number) => Promise<T>): Promise<T[]> {
  const out: T[] = new Array<T>(count);
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < count) {
        const i = next++;
        out[i] = await job(i);
      }
    }),
  );
  return out;
}

const botAddress = (i: number) => `10.${(i >> 8) & 255}.${i & 255}.7`;
const asBot = (i: number) => ({ 'user-agent': UA, 'x-forwarded-for': botAddress(i), 'x-country': 'US' });
const pool = async (campaignId: number) => fx.app.svc.redis.hgetall(campaignPoolKey(campaignId, budgetDay(Date.now())));
const balance = async (adv: Account) => Number(await fx.app.svc.redis.get(balanceKey(adv.id)));

async function allEvents(): Promise<EventFields[]> {
  await Promise.all(engines.map((e) => e.engine.events.flush()));
  return streamedEvents(fx.app.svc.redis);
}

let advs: Record<'cpm' | 'rival' | 'cpc' | 'filler', Account>;
const ids: Record<string, number> = {};
let pub: Account;
const zones: Record<'banner' | 'native', { id: number; subid: string }> = { banner: { id: 0, subid: '' }, native: { id: 0, subid: '' } };

beforeAll(async () => {
  world = await World.create(fx.app);
  await world.partner();
  advs = {
    cpm: await world.advertiser(150), // $1.50 of balance against a $2.00 daily budget: the balance binds
    rival: await world.advertiser(1_000_000),
    cpc: await world.advertiser(100_000),
    filler: await world.advertiser(1_000_000),
  };
  // Banner: the target pays the rival's $50 CPM ($0.05 an impression) until its balance is spent, then the rival serves.
  ids.cpm = (await world.campaign(advs.cpm, { format: 'banner', bid_usd: 60, daily_budget_usd: 2 })).campaign.id;
  ids.rival = (await world.campaign(advs.rival, { format: 'banner', bid_usd: 50, daily_budget_usd: 10_000 })).campaign.id;
  // Native: a $0.30 CPC campaign with a $3.00 budget (10 clicks), then a CPM filler.
  ids.cpc = (await world.campaign(advs.cpc, { format: 'native', bid_type: 'cpc', bid_usd: 0.3, daily_budget_usd: 3 })).campaign.id;
  ids.filler = (await world.campaign(advs.filler, { format: 'native', bid_usd: 0.01, daily_budget_usd: 10_000 })).campaign.id;
  const site = await world.site();
  pub = site.publisher;
  zones.banner = await world.zone({ format: 'banner', banner_width: 300, banner_height: 250 }, site);
  zones.native = await world.zone({ format: 'native' }, site);
  // Behind our own proxy (loopback): the engines take the client address from X-Forwarded-For.
  engines = [await startEngine(fx.redis.url, { TRUSTED_PROXIES: '127.0.0.1' }), await startEngine(fx.redis.url, { TRUSTED_PROXIES: '127.0.0.1' })];
  await eventually(() =>
    engines.every((e) => e.engine.mirror.index?.zones.get(zones.native.subid)?.serving === true && e.engine.mirror.index.candidateCount === 4),
  );
  await eventually(async () =>
    (await Promise.all(engines.map((e) => fetch(`${e.base}/imp?z=${zones.banner.subid}&fp=probe`, { headers: asBot(99_999) })))).every((r) => r.status === 200),
  );
}, 60_000);
afterAll(async () => {
  for (const e of engines) await e.stop();
});

interface Served {
  engine: number;
  beacon_url: string;
  click_url: string;
}

describe('a botnet farming 10 000 tickets on two engines', () => {
  it('never charges past a budget or a balance, counts each ticket once, and credits the publisher exactly its share', async () => {
    // Farm: half the tickets on each zone, alternating engines; each bot asks a zone once.
    const served = await inParallel(TICKETS, 32, async (i): Promise<Served | undefined> => {
      const zone = i % 2 ? zones.native : zones.banner;
      const engine = (i >> 1) % 2;
      const r = await fetch(`${engines[engine]?.base}/imp?z=${zone.subid}&fp=bot-${i}&s=e30`, { headers: asBot(i) });
      return r.status === 200 ? { engine, ...((await r.json()) as Omit<Served, 'engine'>) } : undefined;
    });
    expect(served.filter(Boolean)).toHaveLength(TICKETS);
    // Render, be viewable, then replay both through the other engine; click on both engines.
    await inParallel(TICKETS, 32, async (i) => {
      const s = served[i] as Served;
      const other = engines[1 - s.engine]?.base ?? '';
      await fetch(s.beacon_url, { headers: asBot(i) });
      await fetch(`${s.beacon_url}?e=viewable`, { headers: asBot(i) });
      for (const url of [s.beacon_url, `${s.beacon_url}?e=viewable`]) await fetch(url.replace(/^http:\/\/[^/]+/, other), { headers: asBot(i) });
      for (const [n, engine] of engines.entries()) {
        const url = s.click_url.replace(/^http:\/\/[^/]+/, engine.base);
        const r = await fetch(`${url}?ttc=900&x=10&y=12&focus=1&fp=bot-click-${i}-${n}`, { headers: asBot(i), redirect: 'manual' });
        expect(r.status).toBe(302);
      }
    });
    // A partner's 300 won bids: each win notice and pixel replayed three times across both engines.
    const nurls: string[] = [];
    for (let i = 0; nurls.length < 300 && i < 3_000; i++) {
      const r = await postBid(engines[i % 2]?.base ?? '', bannerRequest({ id: `rtb-${i}`, device: { geo: { country: 'USA' }, ua: UA, ip: '192.0.2.10' } }));
      const bid = r.status === 200 ? (r.body as unknown as BidResponse).seatbid[0]?.bid[0] : undefined;
      if (bid) nurls.push(bid.nurl.replace('${AUCTION_PRICE}', '0.5'));
    }
    await inParallel(nurls.length * 3, 16, async (i) => {
      const url = (nurls[i % nurls.length] ?? '').replace(/^http:\/\/[^/]+/, engines[i % 2]?.base ?? '');
      expect((await fetch(url)).status).toBe(200);
    });
    await Promise.all(engines.map((e) => e.engine.budget.flush()));
    const events = await allEvents();

    // Each ticket counted at most once: one impression per rendered ad, one viewable, one valid-or-not click.
    const onZones = events.filter((e) => e.zone_id === zones.banner.id || e.zone_id === zones.native.id);
    expect(onZones.filter((e) => e.type === 'impression')).toHaveLength(TICKETS);
    expect(onZones.filter((e) => e.type === 'viewable')).toHaveLength(TICKETS);
    expect(new Set(onZones.filter((e) => e.type === 'impression').map((e) => e.bid_id)).size).toBe(TICKETS);
    const clicks = onZones.filter((e) => e.type === 'click');
    expect(clicks).toHaveLength(2 * TICKETS);
    expect(clicks.filter((e) => e.reason === 'duplicate')).toHaveLength(TICKETS);
    // Every first click is valid-looking: each is valid (paid by CPC while its budget lasts) or refused by the budget alone.
    expect(clicks.filter((e) => e.reason !== 'duplicate').every((e) => e.reason === undefined || e.reason === 'budget_exhausted')).toBe(true);
    expect(events.filter((e) => e.type === 'win')).toHaveLength(300);

    // No budget or balance overrun, and the pools agree with the events to the nano-dollar.
    const charged = (campaignId: number) => events.filter((e) => e.campaign_id === campaignId).reduce((s, e) => s + (e.charge_nano ?? 0), 0);
    for (const [key, budgetUsd] of [
      ['cpm', 2],
      ['rival', 10_000],
      ['cpc', 3],
      ['filler', 10_000],
    ] as const) {
      const p = await pool(ids[key] ?? 0);
      expect(Number(p.spent ?? 0), key).toBe(charged(ids[key] ?? 0));
      expect(Number(p.spent ?? 0) + Number(p.held ?? 0), key).toBeLessThanOrEqual(budgetUsd * 100 * NANO_PER_CENT);
    }
    // The target ran out of balance ($1.50: 30 impressions at $0.05), never below zero; the rival took the rest.
    expect(charged(ids.cpm ?? 0)).toBeGreaterThan(0);
    expect(charged(ids.cpm ?? 0)).toBeLessThanOrEqual(150 * NANO_PER_CENT);
    expect(await balance(advs.cpm)).toBeGreaterThanOrEqual(0);
    expect(await balance(advs.cpm)).toBe(150 - Math.floor(charged(ids.cpm ?? 0) / NANO_PER_CENT));
    // CPC: at most 10 clicks by budget, each charged once; the rest invalid with their reason.
    const paidClicks = clicks.filter((e) => (e.charge_nano ?? 0) > 0);
    expect(paidClicks.length).toBeGreaterThan(0);
    expect(paidClicks.length).toBeLessThanOrEqual(10);
    expect(paidClicks.every((e) => e.campaign_id === ids.cpc && e.charge_nano === 300_000_000)).toBe(true);
    for (const adv of Object.values(advs)) expect(await balance(adv)).toBeGreaterThanOrEqual(0);

    // The publisher is credited 70% of what its zones were charged, rounded down to the cent.
    await ingestAll(
      fx.app,
      engines.map((e) => e.engine),
    );
    const today = new Date().toISOString().slice(0, 10);
    const stats = await call<{ rows: { earnings_cents: number; impressions: number }[] }>(fx.app, 'GET', `/api/pub/stats?from=${today}&to=${today}`, {
      token: pub.token,
    });
    const zoneCharges = onZones.reduce((s, e) => s + (e.charge_nano ?? 0), 0);
    expect(zoneCharges).toBe(
      ['cpm', 'rival', 'cpc', 'filler'].reduce((s, k) => s + charged(ids[k] ?? 0), 0) -
        events.filter((e) => e.type === 'win').reduce((s, e) => s + (e.charge_nano ?? 0), 0),
    );
    expect(stats.body.rows).toEqual([expect.objectContaining({ impressions: TICKETS, earnings_cents: Math.floor((zoneCharges * 70) / 100 / NANO_PER_CENT) })]);
  }, 600_000);
});
