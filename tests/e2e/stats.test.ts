import type { BidResponse } from '@adnet/schemas/openrtb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { account, call, useTestApp } from '@adnet/test-support/admin';
import type { Account } from '@adnet/test-support/admin';
import { eventually, postBid, startEngine } from '@adnet/test-support/engine';
import type { TestEngine } from '@adnet/test-support/engine';
import { ingestAll } from '@adnet/test-support/ingest-all';
import { World, bannerRequest } from '@adnet/test-support/world';

// The admin runs its ingester as `pnpm start` does; a short flush keeps each wait for ClickHouse brief.
const fx = useTestApp({ INGEST_FLUSH_MS: '100' }, { clickhouse: true, parts: ['ingester'] });
let engine: TestEngine;
let world: World;
let a: Account;
let b: Account;
const ids: Record<string, number> = {};
const today = new Date().toISOString().slice(0, 10);
const WINDOWS_EDGE =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/125.0.0.0 Safari/537.36 Edg/125.0.2535.51';
const IPHONE_SAFARI =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1';

/** Bids until `wins` bids of `campaignId` are won at `price` (CPM USD), plus `lost` bids that never win. */
async function traffic(
  req: Record<string, unknown>,
  campaignId: number,
  { wins, lost, price }: { wins: number; lost: number; price: number },
): Promise<void> {
  await eventually(async () => {
    const r = await postBid(engine.base, req);
    return r.status === 200 && (r.body as unknown as BidResponse).seatbid[0]?.bid[0]?.cid === String(campaignId);
  });
  let won = 0;
  let unanswered = 0;
  while (won < wins || unanswered < lost) {
    const r = await postBid(engine.base, { ...req, id: `t-${Math.random()}` });
    const bid = r.status === 200 ? (r.body as unknown as BidResponse).seatbid[0]?.bid[0] : undefined;
    if (!bid) continue;
    if (won < wins) {
      await fetch(bid.nurl.replace('${AUCTION_PRICE}', String(price)));
      won++;
    } else unanswered++;
  }
}

beforeAll(async () => {
  world = await World.create(fx.app);
  await world.partner();
  a = await world.advertiser(100_000);
  b = await world.advertiser(100_000);
  ids.us = (await world.campaign(a, { geo_include: ['us'], bid_usd: 5 })).campaign.id;
  ids.de = (await world.campaign(a, { format: 'native', geo_include: ['de'], bid_usd: 5 })).campaign.id;
  ids.other = (await world.campaign(b, { geo_include: ['fr'], bid_usd: 5 })).campaign.id;
  engine = await startEngine(fx.redis.url);
  // Floors set our (second-price) bid, so clearing prices are exact: $2 CPM = 0.2 cents, $1 CPM = 0.1 cents.
  await traffic(
    bannerRequest(
      { device: { geo: { country: 'USA' }, devicetype: 2, language: 'en', ua: WINDOWS_EDGE } },
      { bidfloor: 2 },
    ),
    ids.us,
    { wins: 30, lost: 10, price: 2 },
  );
  await traffic(
    bannerRequest(
      { device: { geo: { country: 'DEU' }, devicetype: 1, language: 'en', ua: IPHONE_SAFARI } },
      { banner: undefined, native: { request: '{}' }, bidfloor: 1 },
    ),
    ids.de,
    { wins: 20, lost: 0, price: 1 },
  );
  await traffic(
    bannerRequest({ device: { geo: { country: 'FRA' }, devicetype: 5, language: 'en' } }, { bidfloor: 2 }),
    ids.other,
    { wins: 5, lost: 0, price: 2 },
  );
  await ingestAll(fx.app, [engine.engine]);
}, 120_000);
afterAll(async () => {
  await engine.stop();
});

/** A new publisher's approved site with a banner zone, serving on the engine. */
async function bannerZone() {
  const site = await world.site();
  const zone = { body: await world.zone({ format: 'banner', banner_width: 300, banner_height: 250 }, site) };
  await eventually(() => engine.engine.mirror.index?.zones.get(zone.body.subid)?.serving ?? false);
  return { site, pub: site.publisher, zone };
}

type Rows = { rows: Record<string, number | string>[] };
const stats = (token: string, query: string) => call<Rows>(fx.app, 'GET', `/api/adv/stats?${query}`, { token });

describe('statistics from real engine traffic', () => {
  it('per day by default, to the unit', async () => {
    const r = await stats(a.token, `from=${today}&to=${today}`);
    expect(r.status).toBe(200);
    expect(r.body.rows).toEqual([
      {
        date: today,
        impressions: 50,
        viewable_impressions: 0,
        clicks: 0,
        invalid_clicks: 0,
        ctr: 0,
        spent_cents: 8,
        // The exact spend beside its cents: 30 at $2 CPM and 20 at $1 CPM.
        spent_nano: 80_000_000,
        conversions: 0,
        ecpa_cents: 0,
        // No conversions, so no revenue: everything spent is lost.
        revenue_cents: 0,
        roi: -1,
      },
    ]);
  });

  it("by the viewer's OS and browser, as the engine read them from the partner's user agent", async () => {
    const r = await stats(a.token, `from=${today}&to=${today}&group_by=os,browser`);
    expect(r.body.rows.map((row) => [row.os, row.browser, row.impressions])).toEqual([
      ['ios', 'safari', 20],
      ['windows', 'edge', 30],
    ]);
    const csv = await fetch(`${fx.app.base}/api/adv/stats?from=${today}&to=${today}&group_by=browser&format=csv`, {
      headers: { authorization: `Bearer ${a.token}` },
    });
    expect((await csv.text()).split('\n').slice(0, 2)).toEqual([
      'browser,impressions,viewable_impressions,clicks,invalid_clicks,ctr,spent_cents,conversions,ecpa_cents,revenue_cents,roi,spent_nano',
      'edge,30,0,0,0,0,6,0,0,0,-1,60000000',
    ]);
  });

  it('by campaign, creative, geo, device and hour', async () => {
    const byCampaign = await stats(a.token, `from=${today}&to=${today}&group_by=campaign`);
    expect(byCampaign.body.rows.map((r) => [r.campaign_id, r.impressions, r.spent_cents])).toEqual([
      [ids.us, 30, 6],
      [ids.de, 20, 2],
    ]);
    const byGeoDevice = await stats(a.token, `from=${today}&to=${today}&group_by=geo,device`);
    expect(byGeoDevice.body.rows.map((r) => [r.geo, r.device, r.impressions])).toEqual([
      ['de', 'mobile', 20],
      ['us', 'desktop', 30],
    ]);
    const byCreative = await stats(a.token, `from=${today}&to=${today}&group_by=creative,campaign`);
    expect(byCreative.body.rows).toHaveLength(2);
    const byHour = await stats(a.token, `from=${today}&to=${today}&group_by=hour`);
    expect(byHour.body).toHaveProperty('rows');
    expect(byHour.body.rows.reduce((s, r) => s + Number(r.impressions), 0)).toBe(50);
    expect(String(byHour.body.rows[0]?.hour)).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:00$/);
    const bySiteZone = await stats(a.token, `from=${today}&to=${today}&group_by=site,zone`);
    expect(bySiteZone.body.rows).toEqual([expect.objectContaining({ site_id: 0, zone_id: 0, impressions: 50 })]);
  });

  it('shows each advertiser only its own, admins everything', async () => {
    expect((await stats(b.token, `from=${today}&to=${today}`)).body.rows).toEqual([
      expect.objectContaining({ impressions: 5, spent_cents: 1 }),
    ]);
    const all = await call<Rows>(fx.app, 'GET', `/api/admin/stats?from=${today}&to=${today}`, {
      token: world.admin.token,
    });
    expect(all.body.rows[0]?.impressions).toBe(55);
    const one = await call<Rows>(fx.app, 'GET', `/api/admin/stats?from=${today}&to=${today}&advertiser_id=${b.id}`, {
      token: world.admin.token,
    });
    expect(one.body.rows[0]?.impressions).toBe(5);
    const idle = await world.advertiser(0);
    expect((await stats(idle.token, `from=${today}&to=${today}`)).body.rows).toEqual([]);
    const pub = await call(fx.app, 'GET', `/api/adv/stats?from=${today}&to=${today}`, {
      token: (await account(fx.app, 'publisher')).token,
    });
    expect(pub.status).toBe(403);
  });

  it("answers 403 for another advertiser's campaign and 404 for none, in the spec's error shape", async () => {
    const theirs = await stats(a.token, `from=${today}&to=${today}&campaign_id=${ids.other}`);
    expect(theirs.status).toBe(403);
    expect(theirs.body).toEqual({ error: expect.any(String), code: 'forbidden' });
    const none = await stats(a.token, `from=${today}&to=${today}&campaign_id=999999`);
    expect([none.status, none.body]).toEqual([404, { error: 'Campaign not found', code: 'not_found' }]);
    const own = await stats(a.token, `from=${today}&to=${today}&campaign_id=${ids.us}&group_by=campaign`);
    expect(own.body.rows.map((r) => [r.campaign_id, r.impressions])).toEqual([[ids.us, 30]]);
  });

  it('exports CSV', async () => {
    const res = await fetch(`${fx.app.base}/api/adv/stats?from=${today}&to=${today}&group_by=campaign&format=csv`, {
      headers: { authorization: `Bearer ${a.token}` },
    });
    expect(res.headers.get('content-type')).toContain('text/csv');
    expect((await res.text()).trim().split('\n')).toEqual([
      'campaign_id,impressions,viewable_impressions,clicks,invalid_clicks,ctr,spent_cents,conversions,ecpa_cents,revenue_cents,roi,spent_nano',
      `${ids.us},30,0,0,0,0,6,0,0,0,-1,60000000`,
      `${ids.de},20,0,0,0,0,2,0,0,0,-1,20000000`,
    ]);
  });

  it('rebuilds spend counters from the event store after Redis lost them', async () => {
    const before = await call<{ daily_spent_cents: number }>(fx.app, 'GET', `/api/adv/campaigns/${ids.us}`, {
      token: a.token,
    });
    expect(before.body.daily_spent_cents).toBe(6);
    await fx.app.svc.redis.del(`bud:{c:${ids.us}}:${today}`, `bud:{c:${ids.de}}:${today}`);
    expect(
      (await call<{ daily_spent_cents: number }>(fx.app, 'GET', `/api/adv/campaigns/${ids.us}`, { token: a.token }))
        .body.daily_spent_cents,
    ).toBe(0);
    const r = await call(fx.app, 'POST', '/api/admin/spend/rebuild', {
      token: world.admin.token,
      json: { day: today },
    });
    expect(r.body).toEqual({ day: today, campaigns: 3, spent_cents: 9 });
    expect(
      (await call<{ daily_spent_cents: number }>(fx.app, 'GET', `/api/adv/campaigns/${ids.us}`, { token: a.token }))
        .body.daily_spent_cents,
    ).toBe(6);
    expect(
      (await call<{ daily_spent_cents: number }>(fx.app, 'GET', `/api/adv/campaigns/${ids.de}`, { token: a.token }))
        .body.daily_spent_cents,
    ).toBe(2);
    expect(
      (await call(fx.app, 'POST', '/api/admin/spend/rebuild', { token: a.token, json: { day: today } })).status,
    ).toBe(403);
    expect(
      (await call(fx.app, 'POST', '/api/admin/spend/rebuild', { token: world.admin.token, json: { day: 'yesterday' } }))
        .status,
    ).toBe(400);
    expect(
      (
        await call(fx.app, 'POST', '/api/admin/spend/rebuild', {
          token: world.admin.token,
          json: { day: '2026-02-30' },
        })
      ).body,
    ).toEqual({
      errors: { day: 'must be a real calendar date' },
    });
  });

  it('publishers see impressions and earnings on their own zones', async () => {
    const { site, pub, zone } = await bannerZone();
    // 10 wins at $2 CPM = 2 cents of spend; 70% to the publisher = 1 cent (rounded down from 1.4).
    await traffic(
      bannerRequest(
        { device: { geo: { country: 'USA' }, devicetype: 2, language: 'en', ua: WINDOWS_EDGE } },
        { bidfloor: 2, tagid: zone.body.subid },
      ),
      ids.us as number,
      { wins: 10, lost: 0, price: 2 },
    );
    await ingestAll(fx.app, [engine.engine]);
    const r = await call<Rows>(fx.app, 'GET', `/api/pub/stats?from=${today}&to=${today}&group_by=site,zone`, {
      token: pub.token,
    });
    expect(r.body.rows).toEqual([
      {
        site_id: site.id,
        zone_id: zone.body.id,
        impressions: 10,
        viewable_impressions: 0,
        clicks: 0,
        invalid_clicks: 0,
        ctr: 0,
        earnings_cents: 1,
        fallbacks: 0,
        unfilled: 0,
        fill_rate: 1,
      },
    ]);
    const byOs = await call<Rows>(fx.app, 'GET', `/api/pub/stats?from=${today}&to=${today}&group_by=os`, {
      token: pub.token,
    });
    expect(byOs.body.rows.map((row) => [row.os, row.impressions])).toEqual([['windows', 10]]);
    expect(
      (await call(fx.app, 'GET', `/api/pub/stats?from=${today}&to=${today}&group_by=campaign`, { token: pub.token }))
        .status,
    ).toBe(400);
    expect((await call(fx.app, 'GET', `/api/pub/stats?from=${today}&to=${today}`, { token: a.token })).status).toBe(
      403,
    );
  });

  it('publishers see viewable impressions, and the traffic not counted on their zones by reason', async () => {
    const { site, pub, zone } = await bannerZone();
    const browser = {
      'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) Chrome/125.0 Safari/537.36',
      'x-country': 'US',
      origin: `https://${site.domain}`,
    };
    const ask = (headers: Record<string, string>) =>
      fetch(`${engine.base}/imp?z=${zone.body.subid}&fp=stats-${Math.random()}`, {
        headers: { ...browser, ...headers },
      });
    const served: { beacon_url: string; click_url: string }[] = [];
    for (let i = 0; i < 4; i++)
      served.push((await (await ask({})).json()) as { beacon_url: string; click_url: string });
    // Three rendered, two of them in view; one beacon replayed from another browser; the fourth never rendered.
    for (const ad of served.slice(0, 3)) await fetch(ad.beacon_url, { headers: browser });
    for (const ad of served.slice(0, 2)) await fetch(`${ad.beacon_url}?e=viewable`, { headers: browser });
    await fetch(served[0]?.beacon_url ?? '', { headers: { ...browser, 'user-agent': 'Mozilla/5.0 Firefox/126.0' } });
    // Refused requests: two from another site's page, one from a crawler.
    for (const origin of ['https://ticket-farm.test', 'https://other.test'])
      expect((await ask({ origin })).status).toBe(204);
    expect((await ask({ 'user-agent': 'Googlebot/2.1 (+http://www.google.com/bot.html)' })).status).toBe(204);
    // A click with no time on the page.
    await fetch(`${served[2]?.click_url}?ttc=5&x=1&y=1&focus=1&fp=f`, { headers: browser, redirect: 'manual' });
    // A click that looks human on the ad that was never shown.
    await fetch(`${served[3]?.click_url}?ttc=1500&x=10&y=10&focus=1&fp=stats-click`, {
      headers: browser,
      redirect: 'manual',
    });
    await ingestAll(fx.app, [engine.engine]);

    const day = `from=${today}&to=${today}`;
    const r = await call<Rows>(fx.app, 'GET', `/api/pub/stats?${day}&group_by=zone`, { token: pub.token });
    expect(r.body.rows).toMatchObject([
      { zone_id: zone.body.id, impressions: 3, viewable_impressions: 2, clicks: 0, invalid_clicks: 2 },
    ]);
    const u = await call<Rows>(fx.app, 'GET', `/api/pub/stats/uncounted?${day}&group_by=zone`, { token: pub.token });
    expect(u.status).toBe(200);
    expect(u.body.rows).toEqual([
      { zone_id: zone.body.id, of: 'click', reason: 'not_rendered', events: 1 },
      { zone_id: zone.body.id, of: 'click', reason: 'too_fast', events: 1 },
      { zone_id: zone.body.id, of: 'impression', reason: 'mismatch', events: 1 },
      { zone_id: zone.body.id, of: 'request', reason: 'bot_traffic', events: 1 },
      { zone_id: zone.body.id, of: 'request', reason: 'foreign_origin', events: 2 },
    ]);
    // Only the publisher's own zones, and only dimensions the table has.
    expect(
      (
        await call<Rows>(fx.app, 'GET', `/api/pub/stats/uncounted?${day}`, {
          token: (await world.site()).publisher.token,
        })
      ).body.rows,
    ).toEqual([]);
    expect(
      (await call(fx.app, 'GET', `/api/pub/stats/uncounted?${day}&group_by=geo`, { token: pub.token })).status,
    ).toBe(400);
    expect((await call(fx.app, 'GET', `/api/pub/stats/uncounted?${day}`, { token: a.token })).status).toBe(403);
  });

  it('gives the exact spend under a cent (spent_nano) where spent_cents is 0, in JSON and CSV', async () => {
    // Its own advertiser and country, so the other cases' figures stay as they were.
    const c = await world.advertiser(100_000);
    const id = (await world.campaign(c, { geo_include: ['it'], bid_usd: 5 })).campaign.id;
    // Three impressions cleared at $1.50 CPM: 0.45 cents.
    await traffic(
      bannerRequest({ device: { geo: { country: 'ITA' }, devicetype: 2, language: 'en' } }, { bidfloor: 1.5 }),
      id,
      { wins: 3, lost: 0, price: 1.5 },
    );
    await ingestAll(fx.app, [engine.engine]);
    const r = await stats(c.token, `from=${today}&to=${today}&group_by=campaign`);
    expect(r.body.rows.map((x) => [x.campaign_id, x.impressions, x.spent_cents, x.spent_nano])).toEqual([
      [id, 3, 0, 4_500_000],
    ]);
    const csv = await fetch(`${fx.app.base}/api/adv/stats?from=${today}&to=${today}&group_by=campaign&format=csv`, {
      headers: { authorization: `Bearer ${c.token}` },
    });
    const [head, row] = (await csv.text()).trim().split('\n');
    expect(head?.split(',').at(-1)).toBe('spent_nano');
    expect(row).toBe(`${id},3,0,0,0,0,0,0,0,0,-1,4500000`);
    // Publishers are paid from it but see their earnings, not the advertiser's spend.
    const pubRows = await call<Rows>(fx.app, 'GET', `/api/pub/stats?from=${today}&to=${today}`, { token: c.token });
    expect(pubRows.status).toBe(403);
  });

  it('validates every parameter and names the field', async () => {
    const cases: [string, string][] = [
      ['from=2026-13-01&to=2026-12-01', 'from'],
      ['from=2026-02-30&to=2026-03-01', 'from'],
      ['to=2026-01-01', 'from'],
      ['from=2026-03-01&to=2026-02-01', 'from'],
      ['from=2024-01-01&to=2025-12-31', 'to'],
      [`from=${today}&to=${today}&group_by=day,color`, 'group_by'],
      [`from=${today}&to=${today}&tz=Mars/Olympus`, 'tz'],
      [`from=${today}&to=${today}&format=xml`, 'format'],
    ];
    for (const [query, field] of cases) {
      const r = await call(fx.app, 'GET', `/api/adv/stats?${query}`, { token: a.token });
      expect([query, r.status]).toEqual([query, 400]);
      expect(Object.keys(r.body.errors as object), query).toContain(field);
    }
    // Several bad fields: one 400 names them all, the date order included.
    const many = await call(
      fx.app,
      'GET',
      `/api/adv/stats?from=2026-03-01&to=2026-02-01&group_by=color&tz=Mars/Olympus&format=xml&campaign_id=x`,
      {
        token: a.token,
      },
    );
    expect(Object.keys(many.body.errors as object).sort()).toEqual(['campaign_id', 'format', 'from', 'group_by', 'tz']);
    // Injection attempts are values, never SQL.
    const tz = await call(
      fx.app,
      'GET',
      `/api/adv/stats?from=${today}&to=${today}&tz=${encodeURIComponent("UTC') OR 1=1 --")}`,
      { token: a.token },
    );
    expect(tz.status).toBe(400);
    expect((await stats(a.token, `from=${today}&to=${today}&tz=Asia/Tokyo`)).status).toBe(200);
    expect((await call(fx.app, 'GET', `/api/adv/stats?from=${today}&to=${today}`)).status).toBe(401);
  });
});
