import { budgetDay } from '@adnet/schemas/budget-day';
import type { EventFields } from '@adnet/schemas/events';
import type { BidResponse } from '@adnet/schemas/openrtb';
import { balanceKey, campaignPoolKey } from '@adnet/schemas/redis-keys';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, useTestApp } from '@adnet/test-support/admin';
import { decodeTicket, encodeTicket } from '@adnet/engine/signed-token';
import type { BidTicket } from '@adnet/engine/signed-token';
import type { Account } from '@adnet/test-support/admin';
import { eventually, postBid, startEngine, streamedEvents } from '@adnet/test-support/engine';
import type { TestEngine } from '@adnet/test-support/engine';
import { ingestAll } from '@adnet/test-support/ingest-all';
import { World, bannerRequest } from '@adnet/test-support/world';

// The adversary the money attracts, at scale: a botnet (10 000 addresses, one browser user agent)
// farms 10 000 tickets from /imp on two engines behind our proxy, fires every render beacon from the
// address it was served to, replays each beacon and its viewable beacon through the other engine,
// clicks every ad with valid-looking parameters on both engines (the kept ones before their beacons, so
// never as a shown ad), farms VAST answers on a video zone and
// fires each Impression pixel on both engines, and replays a partner's win notices and impression
// trackers. Some of each (widget beacons, VAST pixels, win notices) it keeps, then uses re-signed as if
// their bids were 55 s old: past the 50 s in which the bid's hold is surely there, so they are charged
// straight against budgets and balances that are (nearly) used up, in real Redis. Whatever it does, no
// campaign spends past its daily budget (stated bound: zero), no balance goes below zero, every ticket
// is counted at most once (or recorded as uncounted, with its reason, when the budget or balance no
// longer covers it), and the publisher is credited exactly its share of what was charged.

const fx = useTestApp({ INGEST_FLUSH_MS: '100' }, { clickhouse: true, parts: ['ingester'] });
let world: World;
let engines: TestEngine[] = [];
const UA = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/125.0 Safari/537.36';
const TICKETS = 10_000;
const VAST_TICKETS = 500;
const SECRET = 't'.repeat(40);
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

let advs: Record<'cpm' | 'rival' | 'cpc' | 'filler' | 'video', Account>;
const ids: Record<string, number> = {};
let pub: Account;
const zones: Record<'banner' | 'native' | 'video', { id: number; subid: string }> = {
  banner: { id: 0, subid: '' },
  native: { id: 0, subid: '' },
  video: { id: 0, subid: '' },
};

beforeAll(async () => {
  world = await World.create(fx.app);
  await world.partner();
  advs = {
    cpm: await world.advertiser(150), // $1.50 of balance against a $2.00 daily budget: the balance binds
    rival: await world.advertiser(1_000_000),
    cpc: await world.advertiser(100_000),
    filler: await world.advertiser(1_000_000),
    video: await world.advertiser(1_000_000),
  };
  // Banner: the target pays the rival's $50 CPM ($0.05 an impression) until its balance is spent, then the rival serves.
  ids.cpm = (await world.campaign(advs.cpm, { format: 'banner', bid_usd: 60, daily_budget_usd: 2 })).campaign.id;
  ids.rival = (
    await world.campaign(advs.rival, { format: 'banner', bid_usd: 50, daily_budget_usd: 10_000 })
  ).campaign.id;
  // Native: a $0.30 CPC campaign with a $3.00 budget (10 clicks), then a CPM filler.
  ids.cpc = (
    await world.campaign(advs.cpc, { format: 'native', bid_type: 'cpc', bid_usd: 0.3, daily_budget_usd: 3 })
  ).campaign.id;
  ids.filler = (
    await world.campaign(advs.filler, { format: 'native', bid_usd: 0.01, daily_budget_usd: 10_000 })
  ).campaign.id;
  // Video: a $20 CPM ($0.02 an impression) with a $1.00 budget (50 impressions), then a CPM filler.
  ids.video = (await world.campaign(advs.video, { format: 'video', bid_usd: 20, daily_budget_usd: 1 })).campaign.id;
  ids.videoFiller = (
    await world.campaign(advs.filler, { format: 'video', bid_usd: 0.01, daily_budget_usd: 10_000 })
  ).campaign.id;
  const site = await world.site();
  pub = site.publisher;
  zones.banner = await world.zone({ format: 'banner', banner_width: 300, banner_height: 250 }, site);
  zones.native = await world.zone({ format: 'native' }, site);
  zones.video = await world.zone({ format: 'video' }, site);
  // Behind our own proxy (loopback): the engines take the client address from X-Forwarded-For.
  engines = [
    await startEngine(fx.redis.url, { TRUSTED_PROXIES: '127.0.0.1' }),
    await startEngine(fx.redis.url, { TRUSTED_PROXIES: '127.0.0.1' }),
  ];
  await eventually(() =>
    engines.every(
      (e) =>
        e.engine.mirror.index?.zones.get(zones.video.subid)?.serving === true &&
        e.engine.mirror.index.candidateCount === 6,
    ),
  );
  await eventually(async () =>
    (
      await Promise.all(
        engines.map((e) => fetch(`${e.base}/imp?z=${zones.banner.subid}&fp=probe`, { headers: asBot(99_999) })),
      )
    ).every((r) => r.status === 200),
  );
  await eventually(async () =>
    (
      await Promise.all(
        engines.map((e) =>
          fetch(`${e.base}/vast/${zones.video.subid}.xml`, { headers: asBot(99_998) }).then((r) => r.text()),
        ),
      )
    ).every((x) => x.includes('<Impression')),
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

const onOther = (url: string, base: string) => url.replace(/^http:\/\/[^/]+/, base);
const tokenOf = (url: string) => (url.split('?')[0] ?? '').split('/').pop() ?? '';
const ticketOf = (url: string) => decodeTicket(SECRET, tokenOf(url)) as BidTicket;
/** `url` with its ticket re-signed as if the bid were 55 s old: past the 50 s in which its hold is surely there (auction/ticket-age.ts). */
const late = (url: string) => {
  const token = tokenOf(url);
  const ticket = decodeTicket(SECRET, token) as BidTicket;
  return url.replace(token, encodeTicket(SECRET, { ...ticket, issuedAt: ticket.issuedAt - 55 }));
};
const PIXEL = /<Impression id="imp"><!\[CDATA\[(.+?)\]\]>/;

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
    const tickets = served.map((s) => ticketOf((s as Served).beacon_url));
    // Tickets name the format they were served as, under the signature.
    expect(tickets.every((t, i) => t.format === (i % 2 ? 'native' : 'banner'))).toBe(true);
    // Kept for later: every 50th ticket, and half of the target's (whose balance binds), so the target's
    // balance is nearly used up by the other half when the kept ones come in late.
    const kept = new Set(
      tickets.flatMap((t, i) => (i % 50 === 0 || (t.campaignId === ids.cpm && i % 4 === 0) ? [i] : [])),
    );
    // Render, be viewable, then replay both through the other engine; click on both engines (a kept ticket unrendered).
    await inParallel(TICKETS, 32, async (i) => {
      const s = served[i] as Served;
      const other = engines[1 - s.engine]?.base ?? '';
      if (!kept.has(i)) {
        await fetch(s.beacon_url, { headers: asBot(i) });
        await fetch(`${s.beacon_url}?e=viewable`, { headers: asBot(i) });
        for (const url of [s.beacon_url, `${s.beacon_url}?e=viewable`])
          await fetch(onOther(url, other), { headers: asBot(i) });
      }
      for (const [n, engine] of engines.entries()) {
        const url = onOther(s.click_url, engine.base);
        const r = await fetch(`${url}?ttc=900&x=10&y=12&focus=1&fp=bot-click-${i}-${n}`, {
          headers: asBot(i),
          redirect: 'manual',
        });
        expect(r.status).toBe(302);
      }
    });
    // VAST: 500 answers farmed on the video zone; each Impression pixel fired twice on each engine
    // (every tenth kept for later).
    const pixels = await inParallel(VAST_TICKETS, 32, async (i) => {
      const xml = await (
        await fetch(`${engines[i % 2]?.base}/vast/${zones.video.subid}.xml`, { headers: asBot(20_000 + i) })
      ).text();
      return PIXEL.exec(xml)?.[1] ?? '';
    });
    expect(pixels.filter(Boolean)).toHaveLength(VAST_TICKETS);
    expect(pixels.every((p) => ticketOf(p).format === 'video' && ticketOf(p).surface === 'vast')).toBe(true);
    await inParallel(VAST_TICKETS * 4, 32, async (n) => {
      const i = n >> 2;
      if (i % 10 === 0) return;
      expect(
        (await fetch(onOther(pixels[i] ?? '', engines[n % 2]?.base ?? ''), { headers: asBot(20_000 + i) })).status,
      ).toBe(200);
    });
    // A partner's won bids: 300 banner win notices replayed three times across both engines, 60 more
    // kept for later, and 50 video bids whose win notice and impression tracker are each fired four times.
    const nurls: string[] = [];
    const rtbVideo: { nurl: string; tracker: string }[] = [];
    for (let i = 0; nurls.length < 360 && i < 3_000; i++) {
      const r = await postBid(
        engines[i % 2]?.base ?? '',
        bannerRequest({ id: `rtb-${i}`, device: { geo: { country: 'USA' }, ua: UA, ip: '192.0.2.10' } }),
      );
      const bid = r.status === 200 ? (r.body as unknown as BidResponse).seatbid[0]?.bid[0] : undefined;
      if (bid) nurls.push(bid.nurl.replace('${AUCTION_PRICE}', '0.5'));
    }
    for (let i = 0; rtbVideo.length < 50 && i < 1_000; i++) {
      const req = bannerRequest(
        { id: `rtbv-${i}`, device: { geo: { country: 'USA' }, ua: UA, ip: '192.0.2.11' } },
        { banner: undefined, video: { mimes: ['video/mp4'] } },
      );
      const r = await postBid(engines[i % 2]?.base ?? '', req);
      const bid = r.status === 200 ? (r.body as unknown as BidResponse).seatbid[0]?.bid[0] : undefined;
      if (bid)
        rtbVideo.push({ nurl: bid.nurl.replace('${AUCTION_PRICE}', '0.5'), tracker: PIXEL.exec(bid.adm)?.[1] ?? '' });
    }
    expect([nurls.length, rtbVideo.length, rtbVideo.every((b) => b.tracker.includes('/openrtb/imptracker/'))]).toEqual([
      360,
      50,
      true,
    ]);
    const rtbUrls = [
      ...nurls.slice(0, 300).flatMap((u) => [u, u, u]),
      ...rtbVideo.flatMap((b) => [b.nurl, b.nurl, b.tracker, b.tracker, b.tracker, b.tracker]),
    ];
    await inParallel(rtbUrls.length, 16, async (i) => {
      expect((await fetch(onOther(rtbUrls[i] ?? '', engines[i % 2]?.base ?? ''))).status).toBe(200);
    });

    // Late: the kept beacons, pixels and win notices, re-signed 55 s old, each fired on both engines (twice for wins).
    const keptWins = nurls.slice(300);
    const keptPixels = pixels.filter((_, i) => i % 10 === 0);
    await inParallel(TICKETS, 32, async (i) => {
      if (!kept.has(i)) return;
      const s = served[i] as Served;
      const beacon = late(s.beacon_url);
      for (const engine of [s.engine, 1 - s.engine]) {
        for (const url of [beacon, `${beacon}?e=viewable`])
          expect((await fetch(onOther(url, engines[engine]?.base ?? ''), { headers: asBot(i) })).status).toBe(200);
      }
    });
    const lateUrls = [...keptPixels.flatMap((p) => [late(p), late(p)]), ...keptWins.flatMap((u) => [late(u), late(u)])];
    await inParallel(lateUrls.length, 16, async (i) => {
      const headers = i < keptPixels.length * 2 ? asBot(20_000 + Math.floor(i / 2) * 10) : {};
      expect((await fetch(onOther(lateUrls[i] ?? '', engines[i % 2]?.base ?? ''), { headers })).status).toBe(200);
    });
    await Promise.all(engines.map((e) => e.engine.budget.flush()));
    const events = await allEvents();

    // Each ticket counted at most once: an impression (or, used late past what the budget or balance
    // covers, an uncounted one with its reason), a viewable only for a counted impression, one valid-or-not click.
    const byBid = new Map<string, EventFields[]>();
    for (const e of events) if (e.bid_id) byBid.set(e.bid_id, [...(byBid.get(e.bid_id) ?? []), e]);
    const ofType = (bidId: string, type: string, of?: string) =>
      (byBid.get(bidId) ?? []).filter((e) => e.type === type && (of === undefined || e.of === of));
    const refusals = new Set(['budget_exhausted', 'balance_exhausted']);
    let lateCharged = 0;
    let lateRefused = 0;
    const account = (bidId: string, isLate: boolean, use: 'impression' | 'win', viewables = false) => {
      const counted = ofType(bidId, use);
      const uncounted = ofType(bidId, 'uncounted', use);
      expect(counted.length + uncounted.length, bidId).toBe(1);
      if (!isLate) expect(counted, bidId).toHaveLength(1);
      expect(uncounted.every((e) => refusals.has(e.reason ?? ''))).toBe(true);
      if (isLate && counted.length) lateCharged += (counted[0]?.charge_nano ?? 0) > 0 ? 1 : 0;
      lateRefused += uncounted.length;
      // Fired for every widget ad (VAST players fire none here): a viewable only for a counted impression.
      expect(ofType(bidId, 'viewable').length).toBe(viewables ? counted.length : 0);
    };
    tickets.forEach((t, i) => account(t.bidId, kept.has(i), 'impression', true));
    pixels.forEach((p, i) => account(ticketOf(p).bidId, i % 10 === 0, 'impression'));
    nurls.forEach((u, i) => account(ticketOf(u).bidId, i >= 300, 'win'));
    rtbVideo.forEach((b) => account(ticketOf(b.nurl).bidId, false, 'win'));
    // The late path ran both ways: charged straight against pools with room, refused where none was left.
    expect(lateCharged).toBeGreaterThan(0);
    expect(lateRefused).toBeGreaterThan(0);
    // A partner's impression trackers: one `imp` per bid however often fired, charging nothing (its win notice did).
    const partnerImps = events.filter((e) => e.type === 'imp');
    expect(partnerImps).toHaveLength(50);
    expect(partnerImps.every((e) => e.charge_nano === 0)).toBe(true);
    const onZones = events.filter((e) => e.zone_id === zones.banner.id || e.zone_id === zones.native.id);
    const clicks = onZones.filter((e) => e.type === 'click');
    expect(clicks).toHaveLength(2 * TICKETS);
    // A kept ticket is clicked before its (late) beacon: no ad was shown, so both its clicks are not_rendered and
    // use up nothing; every other ticket's second click is a duplicate.
    const keptBids = new Set([...kept].map((i) => tickets[i]?.bidId));
    const notRendered = clicks.filter((e) => e.reason === 'not_rendered');
    expect(notRendered).toHaveLength(2 * kept.size);
    expect(notRendered.every((e) => keptBids.has(e.bid_id) && e.charge_nano === 0)).toBe(true);
    expect(clicks.filter((e) => e.reason === 'duplicate')).toHaveLength(TICKETS - kept.size);
    // Every first click on a rendered ad is valid-looking: each is valid (paid by CPC while its budget lasts) or refused by the budget alone.
    const firsts = clicks.filter((e) => e.reason !== 'duplicate' && e.reason !== 'not_rendered');
    expect(firsts).toHaveLength(TICKETS - kept.size);
    expect(firsts.every((e) => e.reason === undefined || e.reason === 'budget_exhausted')).toBe(true);

    // No budget or balance overrun, and the pools agree with the events to the nano-dollar (direct late charges included).
    const charged = (campaignId: number) =>
      events.filter((e) => e.campaign_id === campaignId).reduce((s, e) => s + (e.charge_nano ?? 0), 0);
    for (const [key, budgetUsd] of [
      ['cpm', 2],
      ['rival', 10_000],
      ['cpc', 3],
      ['filler', 10_000],
      ['video', 1],
      ['videoFiller', 10_000],
    ] as const) {
      const p = await pool(ids[key] ?? 0);
      expect(Number(p.spent ?? 0), key).toBe(charged(ids[key] ?? 0));
      // A CPC campaign's holds reserve nothing (its impressions are free; clicks fit beside the spend alone).
      const held = key === 'cpc' ? 0 : Number(p.held ?? 0);
      expect(Number(p.spent ?? 0) + held, key).toBeLessThanOrEqual(budgetUsd * 100 * NANO_PER_CENT);
    }
    expect(charged(ids.video ?? 0)).toBeGreaterThan(0);
    // The target ran out of balance ($1.50: 30 impressions at $0.05), never below zero; the rival took the rest.
    expect(charged(ids.cpm ?? 0)).toBeGreaterThan(0);
    expect(charged(ids.cpm ?? 0)).toBeLessThanOrEqual(150 * NANO_PER_CENT);
    expect(await balance(advs.cpm)).toBeGreaterThanOrEqual(0);
    expect(await balance(advs.cpm)).toBe(150 - Math.floor(charged(ids.cpm ?? 0) / NANO_PER_CENT));
    // CPC: the whole budget, 10 clicks, each charged once, although the engines hold slices of its pool; the rest
    // invalid with their reason.
    const paidClicks = clicks.filter((e) => (e.charge_nano ?? 0) > 0);
    expect(paidClicks).toHaveLength(10);
    expect(paidClicks.every((e) => e.campaign_id === ids.cpc && e.charge_nano === 300_000_000)).toBe(true);
    for (const adv of Object.values(advs)) expect(await balance(adv)).toBeGreaterThanOrEqual(0);

    // The publisher is credited 70% of what its zones were charged, rounded down to the cent.
    await ingestAll(
      fx.app,
      engines.map((e) => e.engine),
    );
    const today = new Date().toISOString().slice(0, 10);
    const stats = await call<{ rows: { earnings_cents: number; impressions: number }[] }>(
      fx.app,
      'GET',
      `/api/pub/stats?from=${today}&to=${today}`,
      {
        token: pub.token,
      },
    );
    const ourZones = new Set([zones.banner.id, zones.native.id, zones.video.id]);
    const zoneEvents = events.filter((e) => ourZones.has(e.zone_id ?? 0));
    const zoneCharges = zoneEvents.reduce((s, e) => s + (e.charge_nano ?? 0), 0);
    expect(zoneCharges).toBe(
      Object.values(ids).reduce((s, id) => s + charged(id), 0) -
        events.filter((e) => e.type === 'win').reduce((s, e) => s + (e.charge_nano ?? 0), 0),
    );
    expect(stats.body.rows).toEqual([
      expect.objectContaining({
        impressions: zoneEvents.filter((e) => e.type === 'impression').length,
        earnings_cents: Math.floor((zoneCharges * 70) / 100 / NANO_PER_CENT),
      }),
    ]);
  }, 600_000);
});
