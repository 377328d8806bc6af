import { budgetDay } from '@adnet/schemas/budget-day';
import type { EventFields } from '@adnet/schemas/events';
import { balanceKey, campaignPoolKey, campaignTotalKey, ledgerKey } from '@adnet/schemas/redis-keys';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { call, useTestApp } from '@adnet/test-support/admin';
import type { Bid, BidResponse } from '@adnet/schemas/openrtb';
import { eventually, postBid, startEngine, streamedEvents } from '@adnet/test-support/engine';
import type { TestEngine } from '@adnet/test-support/engine';
import { World, bannerRequest } from '@adnet/test-support/world';

// The adversary of the money path: a script farms tickets from /imp on two engines, clicks every one
// with valid-looking parameters, then replays every click through the other engine. Whatever it does,
// a CPC campaign is charged only within its daily budget and its advertiser's balance never goes
// below zero, and the events, the pool and the ledger agree to the nano-dollar.

const fx = useTestApp();
let world: World;
let engines: TestEngine[] = [];
const BROWSER = {
  'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/125.0 Safari/537.36',
};
const CPC_NANO = 300_000_000; // $0.30

beforeAll(async () => {
  world = await World.create(fx.app);
  engines = [await startEngine(fx.redis.url), await startEngine(fx.redis.url)];
});
afterAll(async () => {
  for (const e of engines) await e.stop();
});
// Each case has its own campaign and zone; the last case's campaign must not win this one's auctions.
const cleanUp: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const c of cleanUp.splice(0)) await c();
});

/** Farms tickets, each rendered (its beacon, as the widget sends it, from the browser it was served to): only a rendered ad can be clicked. */
async function farm(subid: string, count: number): Promise<string[]> {
  const links: string[] = [];
  for (let i = 0; i < count; i++) {
    const r = await fetch(`${engines[i % 2]?.base}/imp?z=${subid}&fp=farm-${i}`, { headers: BROWSER });
    if (r.status !== 200) continue;
    const ad = (await r.json()) as { beacon_url: string; click_url: string };
    expect((await fetch(ad.beacon_url, { headers: BROWSER })).status).toBe(200);
    links.push(ad.click_url);
  }
  return links;
}

/** Clicks every link with a fresh fingerprint (under the flood limit), on the engine the link did not come from as well. */
async function clickAll(links: string[], round: string): Promise<void> {
  await Promise.all(
    links.map(async (link, i) => {
      for (const engine of engines) {
        const url = link.replace(/^http:\/\/[^/]+/, engine.base);
        const r = await fetch(`${url}?ttc=900&x=10&y=12&focus=1&fp=fp${round}${i}x${engine.base.slice(-5)}`, {
          headers: BROWSER,
          redirect: 'manual',
        });
        expect(r.status).toBe(302);
      }
    }),
  );
}

async function clicks(campaignId: number): Promise<EventFields[]> {
  await Promise.all(engines.map((e) => e.engine.events.flush()));
  return (await streamedEvents(fx.app.svc.redis)).filter((e) => e.type === 'click' && e.campaign_id === campaignId);
}

async function setUp(balanceCents: number, dailyBudgetUsd: number, fields: Record<string, unknown> = {}) {
  const adv = await world.advertiser(balanceCents);
  const { campaign } = await world.campaign(adv, {
    format: 'native',
    bid_type: 'cpc',
    bid_usd: 0.3,
    daily_budget_usd: dailyBudgetUsd,
    ...fields,
  });
  const zone = await world.zone({ format: 'native' });
  cleanUp.push(async () => {
    await call(fx.app, 'POST', `/api/adv/campaigns/${campaign.id}/pause`, { token: adv.token });
    await eventually(() =>
      engines.every((e) => e.engine.mirror.index?.campaigns.get(campaign.id)?.status !== 'active'),
    );
  });
  await eventually(() =>
    engines.every(
      (e) =>
        e.engine.mirror.index?.zones.get(zone.subid)?.serving === true &&
        e.engine.mirror.index.campaigns.get(campaign.id)?.status === 'active',
    ),
  );
  // Each engine serves once its first budget slice has arrived.
  await eventually(async () =>
    (
      await Promise.all(engines.map((e) => fetch(`${e.base}/imp?z=${zone.subid}&fp=probe`, { headers: BROWSER })))
    ).every((r) => r.status === 200),
  );
  return { adv, campaign, zone };
}

describe('CPC clicks under attack', () => {
  it('never charges past the daily budget, however many farmed tickets are clicked on however many engines', async () => {
    const { adv, campaign, zone } = await setUp(100_000, 2); // $2.00 a day: at most 6 clicks at $0.30
    const links = await farm(zone.subid, 200);
    expect(links.length).toBe(200);
    await clickAll(links, 'a');
    const all = await clicks(campaign.id);
    const charged = all.filter((e) => (e.charge_nano ?? 0) > 0);
    expect(all).toHaveLength(400);
    // The whole budget to within one click: the engines' slices of a CPC budget hold nothing clicks could not spend.
    expect(charged).toHaveLength(6);
    expect(charged.every((e) => e.charge_nano === CPC_NANO && e.invalid === false)).toBe(true);
    // Every ticket is clicked twice: the second is a duplicate; past the budget the first is refused as such.
    expect(all.filter((e) => e.reason === 'duplicate')).toHaveLength(200);
    expect(all.filter((e) => e.reason === 'budget_exhausted')).toHaveLength(200 - charged.length);
    const pool = await fx.app.svc.redis.hgetall(campaignPoolKey(campaign.id, budgetDay(Date.now())));
    expect(Number(pool.spent)).toBe(charged.length * CPC_NANO);
    // Never past the budget. The engines' holds of a CPC campaign's pool reserve nothing (its impressions are
    // free), so they are not counted against its clicks and may sit beside a spent budget.
    expect(Number(pool.spent)).toBeLessThanOrEqual(200 * 10_000_000);
    // The ledger took exactly what the events charged.
    await Promise.all(engines.map((e) => e.engine.budget.flush()));
    const debits = (await fx.app.svc.redis.xrange(ledgerKey(adv.id), '-', '+'))
      .map(([, f]) => f)
      .filter((f) => f[1] === 'debit');
    const debited = -debits.reduce((s, f) => s + Number(f[3]), 0);
    expect(debited).toBe((charged.length * CPC_NANO) / 10_000_000);
    expect(Number(await fx.app.svc.redis.get(balanceKey(adv.id)))).toBe(100_000 - debited);
  });

  it('never charges past a lifetime budget either, and spends all of it to within one click', async () => {
    const { campaign, zone } = await setUp(100_000, 100, { total_budget_usd: 2 });
    const links = await farm(zone.subid, 60);
    await clickAll(links, 'l');
    const all = await clicks(campaign.id);
    const charged = all.filter((e) => (e.charge_nano ?? 0) > 0);
    expect(charged).toHaveLength(6);
    expect(all.filter((e) => e.reason === 'budget_exhausted')).toHaveLength(links.length - 6);
    expect(Number(await fx.app.svc.redis.hget(campaignTotalKey(campaign.id), 'spent'))).toBe(6 * CPC_NANO);
  });

  it('never takes the balance below zero', async () => {
    const { adv, campaign, zone } = await setUp(100, 50); // $1.00 of balance: at most 3 clicks at $0.30
    const links = await farm(zone.subid, 60);
    await clickAll(links, 'b');
    const all = await clicks(campaign.id);
    const charged = all.filter((e) => (e.charge_nano ?? 0) > 0);
    expect(charged.length).toBeGreaterThanOrEqual(1);
    expect(charged.length).toBeLessThanOrEqual(3);
    expect(all.filter((e) => e.reason === 'balance_exhausted')).toHaveLength(links.length - charged.length);
    await Promise.all(engines.map((e) => e.engine.budget.flush()));
    const balance = Number(await fx.app.svc.redis.get(balanceKey(adv.id)));
    expect(balance).toBeGreaterThanOrEqual(0);
    expect(balance).toBe(100 - Math.floor((charged.length * CPC_NANO) / 10_000_000));
  });

  it('charges nothing for clicks on a paused campaign once the pause has reached the engines', async () => {
    const { adv, campaign, zone } = await setUp(100_000, 50);
    const links = await farm(zone.subid, 10);
    expect((await call(fx.app, 'POST', `/api/adv/campaigns/${campaign.id}/pause`, { token: adv.token })).status).toBe(
      200,
    );
    await eventually(() =>
      engines.every((e) => e.engine.mirror.index?.campaigns.get(campaign.id)?.status === 'paused'),
    );
    await clickAll(links, 'c');
    const all = await clicks(campaign.id);
    expect(all).toHaveLength(20);
    expect(all.every((e) => e.charge_nano === 0)).toBe(true);
    expect(all.filter((e) => e.reason === 'campaign_not_active')).toHaveLength(10);
  });

  it('stores one click record per ticket however often it is clicked', async () => {
    const { campaign, zone } = await setUp(100_000, 50);
    const [link] = await farm(zone.subid, 1);
    const before = await fx.app.svc.redis.dbsize();
    const ids = new Set<string>();
    for (let i = 0; i < 1_000; i += 50) {
      const batch = await Promise.all(
        Array.from({ length: 50 }, (_, j) =>
          fetch(
            `${link?.replace(/^http:\/\/[^/]+/, engines[(i + j) % 2]?.base ?? '')}?ttc=900&x=1&y=1&focus=1&fp=fingerprint-${i + j}`,
            {
              headers: BROWSER,
              redirect: 'manual',
            },
          ),
        ),
      );
      for (const r of batch) ids.add(/c=([0-9a-f-]{36})/.exec(r.headers.get('location') ?? '')?.[1] ?? '');
    }
    expect(ids.size).toBe(1);
    const [clickId] = [...ids];
    expect(await fx.app.svc.redis.exists(`click:{${clickId}}`)).toBe(1);
    // Flood counters (one per fingerprint and minute, expiring) aside, nothing else was stored for 1 000 clicks.
    const keys = await fx.app.svc.redis.keys('click:*');
    expect(keys.filter((k) => k === `click:{${clickId}}`)).toHaveLength(1);
    const seen = await clicks(campaign.id);
    expect(
      seen.filter((e) => e.charge_nano === CPC_NANO),
      JSON.stringify(seen.slice(0, 3)),
    ).toHaveLength(1);
    expect(await fx.app.svc.redis.dbsize()).toBeLessThanOrEqual(before + 1 + 1 + 1_000);
  });
});

describe('a CPC campaign served and clicked until its budget refuses', () => {
  const CLICK_NANO = 500_000_000; // $0.50

  /**
   * Serves an ad on each engine in turn and clicks it once (a fresh viewer each time), until three clicks in
   * a row were not charged; what each click charged, read from the campaign's lifetime pool (every charge adds to it).
   */
  async function serveAndClick(campaignId: number, subid: string, round: string): Promise<number[]> {
    const charges: number[] = [];
    const spent = async () => Number((await fx.app.svc.redis.hget(campaignTotalKey(campaignId), 'spent')) ?? 0);
    for (let i = 0, refused = 0; refused < 3; i++) {
      expect(i).toBeLessThan(40);
      const engine = engines[i % engines.length] as TestEngine;
      const r = await fetch(`${engine.base}/imp?z=${subid}&fp=${round}-${i}`, { headers: BROWSER });
      expect(r.status).toBe(200);
      const ad = (await r.json()) as { beacon_url: string; click_url: string };
      expect((await fetch(ad.beacon_url, { headers: BROWSER })).status).toBe(200);
      const link = ad.click_url;
      const before = await spent();
      const click = await fetch(`${link}?ttc=900&x=10&y=12&focus=1&fp=click-${round}-${i}`, {
        headers: BROWSER,
        redirect: 'manual',
      });
      expect(click.status).toBe(302);
      const charged = (await spent()) - before;
      charges.push(charged);
      refused = charged === 0 ? refused + 1 : 0;
    }
    return charges;
  }

  const deliveryOf = async (adv: { token: string }, campaignId: number) =>
    (
      await call<{ delivery: { serving: boolean; reasons: string[] } }>(
        fx.app,
        'GET',
        `/api/adv/campaigns/${campaignId}`,
        { token: adv.token },
      )
    ).body.delivery;

  it('is charged its whole daily budget to within one click on two engines, never more, and refuses the rest as budget_exhausted', async () => {
    const { adv, campaign, zone } = await setUp(1_000_000, 2.5, { bid_usd: 0.5 });
    const charges = await serveAndClick(campaign.id, zone.subid, 'daily');
    const total = charges.reduce((a, b) => a + b, 0);
    // $2.50 at $0.50 a click: five clicks, although both engines hold a slice of the day's pool all along.
    expect(charges.filter((c) => c > 0)).toEqual([CLICK_NANO, CLICK_NANO, CLICK_NANO, CLICK_NANO, CLICK_NANO]);
    expect(Number(await fx.app.svc.redis.hget(campaignPoolKey(campaign.id, budgetDay(Date.now())), 'spent'))).toBe(
      total,
    );
    const all = await clicks(campaign.id);
    expect(all.filter((e) => e.reason === 'budget_exhausted')).toHaveLength(charges.filter((c) => c === 0).length);
    expect(await deliveryOf(adv, campaign.id)).toEqual({ serving: false, reasons: ['daily_budget_spent'] });
  });

  it('is charged its whole lifetime budget to within one click, never more', async () => {
    const { adv, campaign, zone } = await setUp(1_000_000, 100, { bid_usd: 0.5, total_budget_usd: 3 });
    // $0.50 spent on earlier days: $2.50 of the lifetime budget is left, five clicks.
    await fx.app.svc.redis.hincrby(campaignTotalKey(campaign.id), 'spent', CLICK_NANO);
    const charges = await serveAndClick(campaign.id, zone.subid, 'lifetime');
    expect(charges.filter((c) => c > 0)).toHaveLength(5);
    expect(Number(await fx.app.svc.redis.hget(campaignTotalKey(campaign.id), 'spent'))).toBe(6 * CLICK_NANO);
    expect((await deliveryOf(adv, campaign.id)).reasons).toEqual(['total_budget_spent']);
  });

  it('says it is serving while its budget has room for one more click, though the engines hold slices of it', async () => {
    const { adv, campaign, zone } = await setUp(1_000_000, 2.5, { bid_usd: 0.5 });
    const pool = campaignPoolKey(campaign.id, budgetDay(Date.now()));
    // Both engines served it (setUp), so each holds a slice of its pool.
    expect(Number(await fx.app.svc.redis.hget(pool, 'held'))).toBeGreaterThanOrEqual(2 * 10_000_000);
    // $2.00 of the $2.50 spent: room for one more click.
    await fx.app.svc.redis.hincrby(pool, 'spent', 4 * CLICK_NANO);
    expect(await deliveryOf(adv, campaign.id)).toEqual({ serving: true, reasons: [] });
    const charges = await serveAndClick(campaign.id, zone.subid, 'status');
    expect(charges.filter((c) => c > 0)).toEqual([CLICK_NANO]);
    expect(await deliveryOf(adv, campaign.id)).toEqual({ serving: false, reasons: ['daily_budget_spent'] });
  });
});

describe('CPC campaigns on our video zones', () => {
  it('pay nothing for the started impression', async () => {
    const adv = await world.advertiser(100_000);
    const { campaign } = await world.campaign(adv, { format: 'floating_video', bid_type: 'cpc', bid_usd: 0.5 });
    const zone = await world.zone({ format: 'floating_video', fv_corner: 'br', fv_delay_sec: 3, fv_freq_cap_hours: 6 });
    cleanUp.push(() => call(fx.app, 'POST', `/api/adv/campaigns/${campaign.id}/pause`, { token: adv.token }));
    const engine = engines[0] as TestEngine;
    let xml = '';
    await eventually(async () => {
      xml = await (await fetch(`${engine.base}/vast/${zone.subid}.xml`, { headers: BROWSER })).text();
      return xml.includes('<Impression');
    });
    const pixel = /<Impression id="imp"><!\[CDATA\[(.+?)\]\]>/.exec(xml)?.[1] ?? '';
    expect((await fetch(pixel)).status).toBe(200);
    await engine.engine.events.flush();
    const shown = (await streamedEvents(fx.app.svc.redis)).filter(
      (e) => e.type === 'impression' && e.campaign_id === campaign.id,
    );
    expect(shown).toHaveLength(1);
    expect(shown[0]?.charge_nano).toBe(0);
    // A person clicks the playing ad: judged on what the server saw (impression first, same browser), valid and billed.
    const click = /<ClickThrough id="click"><!\[CDATA\[(.+?)\]\]>/.exec(xml)?.[1] ?? '';
    await new Promise((r) => setTimeout(r, 1_100));
    expect((await fetch(click, { headers: BROWSER, redirect: 'manual' })).status).toBe(302);
    const clicked = (await clicks(campaign.id))[0];
    expect(clicked).toMatchObject({ invalid: false, charge_nano: 500_000_000 });
  });
});

describe('clicks on ads served where no widget measures them', () => {
  it('an OpenRTB ad clicked after its win, by the viewer it was served to, is valid and billed; others are not', async () => {
    await world.partner();
    const adv = await world.advertiser(100_000);
    const { campaign } = await world.campaign(adv, { geo_include: ['ie'], bid_type: 'cpc', bid_usd: 0.4 });
    cleanUp.push(() => call(fx.app, 'POST', `/api/adv/campaigns/${campaign.id}/pause`, { token: adv.token }));
    const engine = engines[0] as TestEngine;
    await eventually(() => engine.engine.mirror.index?.campaigns.get(campaign.id)?.status === 'active');
    const request = (id: string) =>
      bannerRequest({
        id,
        device: { geo: { country: 'IRL' }, language: 'en', ip: '127.0.0.1', ua: BROWSER['user-agent'] },
      });
    const bidFor = async (id: string) => {
      let bid: Bid | undefined;
      await eventually(async () => {
        const r = await postBid(engine.base, request(`${id}-${Date.now()}`));
        bid = r.status === 200 ? (r.body as unknown as BidResponse).seatbid[0]?.bid[0] : undefined;
        return bid?.cid === String(campaign.id);
      });
      return bid as Bid;
    };
    const clickOf = (bid: Bid) => (/href="([^"]+)"/.exec(bid.adm)?.[1] ?? '').replaceAll('&amp;', '&');
    // Won, then clicked a moment later by the same browser: valid, billed at the CPC.
    const won = await bidFor('won');
    await fetch(won.nurl.replace('${AUCTION_PRICE}', '0.1'));
    await new Promise((r) => setTimeout(r, 1_100));
    await fetch(clickOf(won), { headers: BROWSER, redirect: 'manual' });
    // Never won: no impression to follow.
    const lost = await bidFor('lost');
    await fetch(clickOf(lost), { headers: BROWSER, redirect: 'manual' });
    // Won, but clicked by another browser.
    const stolen = await bidFor('stolen');
    await fetch(stolen.nurl.replace('${AUCTION_PRICE}', '0.1'));
    await new Promise((r) => setTimeout(r, 1_100));
    await fetch(clickOf(stolen), {
      headers: { 'user-agent': 'Mozilla/5.0 (Windows NT 10.0) Firefox/126.0' },
      redirect: 'manual',
    });
    const byBid = new Map(
      (await clicks(campaign.id)).map((e) => [e.bid_id, [e.invalid, e.reason ?? null, e.charge_nano]]),
    );
    expect(byBid.get(won.id)).toEqual([false, null, 400_000_000]);
    expect(byBid.get(lost.id)).toEqual([true, 'no_impression', 0]);
    expect(byBid.get(stolen.id)).toEqual([true, 'other_viewer', 0]);
  });
});
