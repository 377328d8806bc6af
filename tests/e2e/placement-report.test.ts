import type { BidResponse } from '@adnet/schemas/openrtb';
import type { ServedAd } from '@adnet/schemas/widget';
import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, useTestApp } from '@adnet/test-support/admin';
import type { Account } from '@adnet/test-support/admin';
import { eventually, postBid, startEngine } from '@adnet/test-support/engine';
import type { TestEngine } from '@adnet/test-support/engine';
import { ingestAll } from '@adnet/test-support/ingest-all';
import { World, bannerRequest } from '@adnet/test-support/world';

// The placement report (issue 18, item 5): one advertiser's statistics by zone, site and source, from real
// traffic through the engine (our widget, an exchange's site and app requests), clicks and an approved
// conversion, summed by chDB.
const fx = useTestApp(
  { INGEST_FLUSH_MS: '100', POSTBACK_ALLOW_LOOPBACK: 'true' },
  { clickhouse: true, parts: ['ingester'] },
);
let engine: TestEngine;
let world: World;
let adv: Account;
let secret = '';
let site: { id: number; domain: string; publisher: Account };
let zone: { id: number; subid: string };
const today = new Date().toISOString().slice(0, 10);
const UA =
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_0) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Safari/605.1.15';

/** Wins `n` bids of the request at $2 CPM (0.2 cents each, the floor sets our second price). */
async function exchangeWins(req: Record<string, unknown>, n: number): Promise<void> {
  for (let won = 0; won < n;) {
    const r = await postBid(engine.base, { ...req, id: `p-${Math.random()}` });
    const bid = r.status === 200 ? (r.body as unknown as BidResponse).seatbid[0]?.bid[0] : undefined;
    if (!bid) continue;
    await fetch(bid.nurl.replace('${AUCTION_PRICE}', '2'));
    won++;
  }
}

/** One widget ad on our zone, shown (its beacon) and, when asked, clicked: the click id the landing page got. */
async function widgetAd(click: boolean): Promise<string> {
  const headers = { 'user-agent': UA, 'x-country': 'FR', origin: `https://${site.domain}` };
  const served = (await (
    await fetch(`${engine.base}/imp?z=${zone.subid}&fp=fp-${Math.random()}`, { headers })
  ).json()) as ServedAd;
  expect((await fetch(served.beacon_url, { headers })).status).toBeLessThan(300);
  if (!click) return '';
  await new Promise((r) => setTimeout(r, 1_100));
  const res = await fetch(`${served.click_url}?ttc=2000&x=5&y=5&focus=1&fp=fp-click`, { redirect: 'manual', headers });
  return /c=([0-9a-f-]{36})/.exec(res.headers.get('location') ?? '')?.[1] ?? '';
}

beforeAll(async () => {
  world = await World.create(fx.app);
  await world.partner();
  adv = await world.advertiser(100_000);
  await world.campaign(adv, { geo_include: ['us'], bid_usd: 5 });
  await world.campaign(adv, { format: 'native', geo_include: ['fr'], bid_usd: 50 });
  secret = String((await call(fx.app, 'GET', '/api/adv/profile', { token: adv.token })).body.postback_secret);
  const s = await world.site();
  site = s;
  // The zone's floor sets our second price: $20 CPM, 2 cents an impression.
  zone = await world.zone({ format: 'native', floor_cpm_usd: 20 }, s);
  engine = await startEngine(fx.redis.url);
  await eventually(
    () =>
      engine.engine.mirror.index?.zones.get(zone.subid)?.serving === true &&
      engine.engine.mirror.index.candidateCount === 2,
  );
  await new Promise((r) => setTimeout(r, 300));

  const us = { geo: { country: 'USA' }, devicetype: 2, language: 'en', ua: UA };
  await exchangeWins(bannerRequest({ device: us, site: { domain: 'm.news.example.co.uk' } }, { bidfloor: 2 }), 3);
  await exchangeWins(
    bannerRequest(
      {
        device: us,
        site: undefined,
        app: { bundle: 'com.Example.Game', domain: 'game.example', publisher: { id: 'p1' } },
      },
      { bidfloor: 2 },
    ),
    2,
  );
  await exchangeWins(bannerRequest({ device: us, site: { domain: '<script>alert(1)</script>' } }, { bidfloor: 2 }), 1);
  await widgetAd(false);
  const clickId = await widgetAd(true);
  expect(clickId).not.toBe('');
  const f = { click_id: clickId, payout: '1500', status: 'approved', txid: 'T-1' };
  const sig = createHmac('sha256', secret).update(`${f.click_id}|${f.payout}|${f.status}|${f.txid}`).digest('hex');
  const pb = await fetch(`${fx.app.base}/postback/in`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ ...f, secret, sig }).toString(),
  });
  expect(pb.status).toBe(200);
  await ingestAll(fx.app, [engine.engine]);
}, 120_000);
afterAll(async () => {
  await engine?.stop();
});

type Rows = { rows: Record<string, number | string>[] };

describe('the placement report', () => {
  it('splits spend, clicks and conversions by source, with eCPA', async () => {
    const r = await call<Rows>(fx.app, 'GET', `/api/adv/stats?from=${today}&to=${today}&group_by=source`, {
      token: adv.token,
    });
    expect(r.status).toBe(200);
    const bySource: Record<string, Record<string, number | string>> = Object.fromEntries(
      r.body.rows.map((row) => [String(row.source), row]),
    );
    expect(Object.keys(bySource).sort()).toEqual(['com.example.game', 'example.co.uk', 'other', site.domain].sort());
    // 3 + 2 + 1 exchange wins at $2 CPM: 0.2 cents each, summed in nano-dollars before rounding down.
    expect(bySource['example.co.uk']).toMatchObject({ impressions: 3, clicks: 0, conversions: 0, ecpa_cents: 0 });
    expect(bySource['com.example.game']).toMatchObject({ impressions: 2, conversions: 0 });
    expect(bySource.other).toMatchObject({ impressions: 1 });
    const own = bySource[site.domain] as Record<string, number>;
    expect(own).toMatchObject({ impressions: 2, clicks: 1, invalid_clicks: 0, conversions: 1 });
    expect(own.spent_cents).toBeGreaterThanOrEqual(4);
    expect(own.ecpa_cents).toBe(own.spent_cents);
    // The conversion's payout, from the real postback, is the advertiser's revenue there, and only there.
    expect(own.revenue_cents).toBe(1500);
    expect(own.roi).toBeGreaterThan(0);
    expect(bySource['example.co.uk']).toMatchObject({ revenue_cents: 0, roi: -1 });
    // Nothing lost or counted twice: the sources add up to the advertiser's total.
    const total =
      (await call<Rows>(fx.app, 'GET', `/api/adv/stats?from=${today}&to=${today}`, { token: adv.token })).body
        .rows[0] ?? {};
    for (const k of ['impressions', 'clicks', 'conversions', 'revenue_cents'] as const) {
      expect(r.body.rows.reduce((sum, row) => sum + Number(row[k]), 0)).toBe(total[k]);
    }
  });

  it('names the zone and site of our own traffic beside its source, and exports it as CSV', async () => {
    const q = `from=${today}&to=${today}&group_by=zone,site,source`;
    const r = await call<Rows>(fx.app, 'GET', `/api/adv/stats?${q}`, { token: adv.token });
    expect(r.body.rows.find((row) => row.zone_id === zone.id)).toMatchObject({
      zone_subid: zone.subid,
      site_id: site.id,
      source: site.domain,
      impressions: 2,
      conversions: 1,
    });
    // Exchange traffic on no zone of ours: no subid to put in a source list.
    expect(r.body.rows.find((row) => row.source === 'com.example.game')).toMatchObject({ zone_id: 0, zone_subid: '' });
    const csv = await fetch(`${fx.app.base}/api/adv/stats?${q}&format=csv`, {
      headers: { authorization: `Bearer ${adv.token}` },
    });
    const lines = (await csv.text()).trim().split('\n');
    expect(lines[0]).toBe(
      'zone_id,zone_subid,site_id,source,impressions,viewable_impressions,clicks,invalid_clicks,ctr,spent_cents,conversions,ecpa_cents,revenue_cents,roi,spent_nano',
    );
    // Spent (0.4 cents, rounded down to 0 in spent_cents, exact in spent_nano) with no revenue: roi -1.
    expect(lines).toContain(`0,,0,com.example.game,2,0,0,0,0,0,0,0,0,-1,4000000`);
    expect(lines.some((l) => l.startsWith(`${zone.id},${zone.subid},${site.id},${site.domain},2,`))).toBe(true);
  });

  it('refuses an unknown dimension naming the field, and keeps source from publishers', async () => {
    const bad = await call(fx.app, 'GET', `/api/adv/stats?from=${today}&to=${today}&group_by=source,placement`, {
      token: adv.token,
    });
    expect([bad.status, bad.body]).toEqual([
      400,
      { errors: { group_by: expect.stringContaining('unknown dimension placement') } },
    ]);
    const pub = await call(fx.app, 'GET', `/api/pub/stats?from=${today}&to=${today}&group_by=source`, {
      token: (await world.site()).publisher.token,
    });
    expect(pub.status).toBe(400);
  });
});

describe('statistics by integration', () => {
  it("tells the widget's, Prebid's and the exchange's traffic apart, for the publisher and for us", async () => {
    // One Prebid.js impression on the same zone: its bid's native markup, its render beacon fired once.
    const hb = await fetch(`${engine.base}/hb/bid`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain', 'user-agent': UA, 'x-country': 'FR', origin: `https://${site.domain}` },
      body: JSON.stringify({
        id: 'hb-1',
        imp: [
          {
            id: '1',
            tagid: zone.subid,
            native: { request: JSON.stringify({ ver: '1.2', assets: [{ id: 1, required: 1, title: { len: 80 } }] }) },
          },
        ],
      }),
    });
    expect(hb.status).toBe(200);
    const adm = ((await hb.json()) as BidResponse).seatbid[0]?.bid[0]?.adm ?? '';
    const beacon = (JSON.parse(adm) as { eventtrackers: { url: string }[] }).eventtrackers[0]?.url ?? '';
    expect((await fetch(beacon, { headers: { 'user-agent': UA, 'x-country': 'FR' } })).status).toBeLessThan(300);
    await ingestAll(fx.app, [engine.engine]);

    const q = `from=${today}&to=${today}&group_by=integration`;
    const pub = await call<Rows>(fx.app, 'GET', `/api/pub/stats?${q}`, { token: site.publisher.token });
    expect(pub.status).toBe(200);
    const byIntegration = (rows: Rows['rows']) => Object.fromEntries(rows.map((r) => [String(r.integration), r]));
    const mine = byIntegration(pub.body.rows);
    expect(Object.keys(mine).sort()).toEqual(['prebid', 'widget']);
    expect(mine.widget).toMatchObject({ impressions: 2, clicks: 1 });
    expect(mine.prebid).toMatchObject({ impressions: 1, clicks: 0 });
    // The exchange's wins are on no zone of ours: only we see them, under OpenRTB.
    const all = await call<Rows>(fx.app, 'GET', `/api/admin/stats?${q}`, { token: world.admin.token });
    const ours = byIntegration(all.body.rows);
    expect(ours.openrtb).toMatchObject({ impressions: 6 });
    // The conversion is the widget's: it follows its click.
    expect(ours.widget).toMatchObject({ impressions: 2, clicks: 1, conversions: 1 });
    const csv = await fetch(`${fx.app.base}/api/admin/stats?${q}&format=csv`, {
      headers: { authorization: `Bearer ${world.admin.token}` },
    });
    expect((await csv.text()).split('\n')[0]).toMatch(/^integration,impressions,/);
  });
});
