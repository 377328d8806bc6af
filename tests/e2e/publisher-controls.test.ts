import type { BidResponse } from '@adnet/schemas/openrtb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, useTestApp } from '@adnet/test-support/admin';
import type { Account } from '@adnet/test-support/admin';
import { eventually, postBid, startEngine, streamedEvents } from '@adnet/test-support/engine';
import type { TestEngine } from '@adnet/test-support/engine';
import { ingestAll } from '@adnet/test-support/ingest-all';
import { World, bannerRequest } from '@adnet/test-support/world';

// Publishers' controls and advertisers' landing macros through a real engine: floors on our own zones and
// on a partner's imp naming one, blocked verticals and advertiser domains (a site's default, a zone's
// override), the fallback of an unfilled zone answered and counted, and the click redirect's macros.
// Each case has a format (or size) of its own, so the campaigns of one do not win another's auctions.

const fx = useTestApp({ INGEST_FLUSH_MS: '100' }, { clickhouse: true, parts: ['ingester'] });
let engine: TestEngine;
let world: World;
const BROWSER = {
  'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/125.0 Safari/537.36',
  'x-country': 'de',
};
const ALL_MACROS =
  'c={click_id}&z={zone_id}&s={site_id}&k={campaign_id}&r={creative_id}&g={geo}&d={device}&o={os}&b={browser}&p={cost}&t={bid_type}';
const ids: Record<string, number> = {};
let site: { id: number; publisher: Account };

interface ImpAnswer {
  status: number;
  body?: {
    creative?: { title: string };
    beacon_url?: string;
    click_url?: string;
    fallback?: { type: string; value: string };
  };
}
async function imp(subid: string, headers: Record<string, string> = BROWSER): Promise<ImpAnswer> {
  const r = await fetch(`${engine.base}/imp?z=${subid}&fp=fp-${Math.random().toString(36).slice(2)}&s=e30`, {
    headers,
  });
  return { status: r.status, body: r.status === 200 ? ((await r.json()) as ImpAnswer['body']) : undefined };
}
const zone = (fields: Record<string, unknown>, on = site) => world.zone(fields, on);
const patchZone = (id: number, json: Record<string, unknown>) =>
  call(fx.app, 'PATCH', `/api/pub/zones/${id}`, { token: site.publisher.token, json });
/** Waits until the engine's index has the zone as the admin last wrote it. */
const mirrored = (subid: string, check: (floor: number) => boolean = () => true) =>
  eventually(() => {
    const entry = engine.engine.mirror.index?.zones.get(subid);
    return entry?.serving === true && check(entry.controls.floorMicroCents);
  });
const events = () => streamedEvents(fx.app.svc.redis, engine);

beforeAll(async () => {
  world = await World.create(fx.app);
  await world.partner();
  const adv = await world.advertiser(100_000);
  const cost = 'https://shop.example.com/p?c={click_id}&p={cost}&t={bid_type}';
  ids.floor = (
    await world.campaign(adv, { format: 'native', bid_usd: 1.2 }, { title: 'Floored', landing_url: cost })
  ).campaign.id;
  ids.gambling = (
    await world.campaign(adv, { format: 'in_page_push', vertical: 'gambling', bid_usd: 3 }, { title: 'Jackpot' })
  ).campaign.id;
  ids.shop = (
    await world.campaign(adv, { format: 'in_page_push', vertical: 'ecommerce', bid_usd: 1 }, { title: 'Shop' })
  ).campaign.id;
  ids.casino = (
    await world.campaign(
      adv,
      { format: 'push', bid_usd: 3 },
      { title: 'Casino', landing_url: 'https://ads.casino.example/x?c={click_id}' },
    )
  ).campaign.id;
  ids.store = (await world.campaign(adv, { format: 'push', bid_usd: 1 }, { title: 'Store' })).campaign.id;
  ids.macros = (
    await world.campaign(
      adv,
      { format: 'banner', bid_type: 'cpc', bid_usd: 0.3 },
      { landing_url: `https://t.example/lp/{campaign_id}?${ALL_MACROS}` },
    )
  ).campaign.id;
  site = await world.site();
  engine = await startEngine(fx.redis.url);
  await eventually(() => engine.engine.mirror.index?.candidateCount === 6);
  await new Promise((r) => setTimeout(r, 300)); // first budget slices
}, 60_000);
afterAll(async () => {
  await engine?.stop();
});

describe('floors', () => {
  it("our zone's auction must clear the zone's floor; the winner alone pays the floor", async () => {
    const z = await zone({ format: 'native', floor_cpm_usd: 2 });
    await mirrored(z.subid);
    expect((await imp(z.subid)).status).toBe(204);
    await eventually(async () =>
      (await events()).some((e) => e.type === 'nobid' && e.zone_id === z.id && e.reason === 'below_floor'),
    );
    await patchZone(z.id, { floor_cpm_usd: 1 });
    await mirrored(z.subid, (floor) => floor === 100_000);
    const served = await imp(z.subid);
    expect(served.body?.creative?.title).toBe('Floored');
    // {cost} of a CPM campaign is the impression's clearing price: here the floor.
    expect((await fetch(served.body?.beacon_url ?? '', { headers: BROWSER })).status).toBe(200);
    const click = await fetch(`${served.body?.click_url}?ttc=1200&x=40&y=20&focus=1&fp=fp-floor`, {
      redirect: 'manual',
      headers: BROWSER,
    });
    expect(click.headers.get('location')).toMatch(/^https:\/\/shop\.example\.com\/p\?c=[0-9a-f-]{36}&p=1&t=cpm$/);
  });

  it("a partner's imp naming our zone gets the higher of its bidfloor and the zone's floor", async () => {
    const z = await zone({ format: 'native', floor_cpm_usd: 2 });
    await mirrored(z.subid);
    const request = (bidfloor: number) =>
      bannerRequest({}, { banner: undefined, native: { request: '{}' }, tagid: z.subid, bidfloor });
    expect((await postBid(engine.base, request(0.1))).status).toBe(204);
    await patchZone(z.id, { floor_cpm_usd: 1 });
    await mirrored(z.subid, (floor) => floor === 100_000);
    const low = await postBid(engine.base, request(0.1));
    expect(low.status).toBe(200);
    expect((low.body as unknown as BidResponse).seatbid[0]?.bid[0]).toMatchObject({ cid: String(ids.floor), price: 1 });
    const high = await postBid(engine.base, request(1.1));
    expect((high.body as unknown as BidResponse).seatbid[0]?.bid[0]?.price).toBe(1.1);
  });
});

describe('blocked verticals and advertiser domains', () => {
  it("blocks a site's default verticals on its zones; a zone's own list overrides the site's", async () => {
    const other = await world.site();
    await call(fx.app, 'PATCH', `/api/pub/sites/${other.id}`, {
      token: other.publisher.token,
      json: { blocked_verticals: ['gambling'] },
    });
    const inherits = await zone({ format: 'in_page_push' }, other);
    const overrides = await zone({ format: 'in_page_push', blocked_verticals: [] }, other);
    const blocksAll = await zone({ format: 'in_page_push', blocked_verticals: ['gambling', 'ecommerce'] }, other);
    for (const z of [inherits, overrides, blocksAll]) await mirrored(z.subid);
    expect((await imp(inherits.subid)).body?.creative?.title).toBe('Shop');
    expect((await imp(overrides.subid)).body?.creative?.title).toBe('Jackpot');
    expect((await imp(blocksAll.subid)).status).toBe(204);
    await eventually(async () =>
      (await events()).some(
        (e) => e.type === 'nobid' && e.zone_id === blocksAll.id && e.reason === 'zone_blocked_vertical',
      ),
    );
  });

  it('blocks creatives whose landing host is a blocked domain or a subdomain of one', async () => {
    const open = await zone({ format: 'push' });
    const noCasino = await zone({ format: 'push', blocked_advertiser_domains: ['casino.example'] });
    const noExample = await zone({ format: 'push', blocked_advertiser_domains: ['www.casino.example', 'example.com'] });
    for (const z of [open, noCasino, noExample]) await mirrored(z.subid);
    expect((await imp(open.subid)).body?.creative?.title).toBe('Casino');
    expect((await imp(noCasino.subid)).body?.creative?.title).toBe('Store');
    // `shop.example.com` is a subdomain of `example.com`, `ads.casino.example` of `casino.example`.
    expect((await imp(noExample.subid)).status).toBe(204);
    await eventually(async () =>
      (await events()).some(
        (e) => e.type === 'nobid' && e.zone_id === noExample.id && e.reason === 'zone_blocked_advertiser',
      ),
    );
  });
});

describe('landing macros at the click redirect', () => {
  it('fills every macro from the ticket and the click, URL-encoded', async () => {
    const z = await zone({ format: 'banner', banner_width: 300, banner_height: 250 });
    await mirrored(z.subid);
    const served = await imp(z.subid);
    expect((await fetch(served.body?.beacon_url ?? '', { headers: BROWSER })).status).toBe(200);
    const r = await fetch(`${served.body?.click_url}?ttc=1200&x=40&y=20&focus=1&fp=fp-macros`, {
      redirect: 'manual',
      headers: BROWSER,
    });
    expect(r.status).toBe(302);
    const click = (await events()).find((e) => e.type === 'click' && e.campaign_id === ids.macros);
    expect(click).toMatchObject({ invalid: false, charge_nano: 300_000_000 });
    const creativeId = String(click?.creative_id);
    const expected = new URLSearchParams({
      c: click?.click_id ?? 'missing',
      z: String(z.id),
      s: String(site.id),
      k: String(ids.macros),
      r: creativeId,
      g: 'de',
      d: 'desktop',
      o: 'linux',
      b: 'chrome',
      p: '0.3',
      t: 'cpc',
    });
    expect(r.headers.get('location')).toBe(`https://t.example/lp/${ids.macros}?${expected.toString()}`);
  });
});

describe('the fallback of an unfilled zone', () => {
  it("answers with the zone's HTML or its site's URL, counts each in the publisher's statistics, and gives invalid traffic nothing", async () => {
    const own = await world.site();
    await call(fx.app, 'PATCH', `/api/pub/sites/${own.id}`, {
      token: own.publisher.token,
      json: { fallback: { type: 'url', value: 'https://house.example/ad?x=1' } },
    });
    // No campaign has this size: nothing fills it.
    const html = await zone(
      { format: 'banner', banner_width: 728, banner_height: 90, fallback: { type: 'html', value: '<p>House ad</p>' } },
      own,
    );
    // The site's URL; nothing clears this floor.
    const url = await zone({ format: 'native', floor_cpm_usd: 900 }, own);
    const none = await zone(
      { format: 'banner', banner_width: 728, banner_height: 90, fallback: { type: 'none' } },
      own,
    );
    for (const z of [html, url, none]) await mirrored(z.subid);
    expect(await imp(html.subid)).toEqual({
      status: 200,
      body: { fallback: { type: 'html', value: '<p>House ad</p>' } },
    });
    expect(await imp(html.subid)).toMatchObject({ status: 200 });
    expect(await imp(url.subid)).toEqual({
      status: 200,
      body: { fallback: { type: 'url', value: 'https://house.example/ad?x=1' } },
    });
    expect((await imp(none.subid)).status).toBe(204);
    expect((await imp(html.subid, { ...BROWSER, 'user-agent': 'curl/8.0' })).status).toBe(204);
    const fallbacks = (await events()).filter((e) => e.type === 'fallback' && e.publisher_id === own.publisher.id);
    expect(fallbacks.map((e) => [e.zone_id, e.reason]).sort()).toEqual(
      [
        [html.id, 'no_candidates'],
        [html.id, 'no_candidates'],
        [url.id, 'below_floor'],
      ].sort(),
    );
    await ingestAll(fx.app, [engine.engine]);
    const today = new Date().toISOString().slice(0, 10);
    const stats = await call<{
      rows: { zone_id: number; fallbacks: number; unfilled: number; impressions: number; fill_rate: number | null }[];
    }>(fx.app, 'GET', `/api/pub/stats?from=${today}&to=${today}&group_by=zone`, { token: own.publisher.token });
    // Every valid request nothing filled is unfilled, fallback or not; the bot's request is not a request the zone could fill.
    expect(stats.body.rows).toEqual([
      expect.objectContaining({ zone_id: html.id, fallbacks: 2, unfilled: 2, impressions: 0, fill_rate: 0 }),
      expect.objectContaining({ zone_id: url.id, fallbacks: 1, unfilled: 1, impressions: 0, fill_rate: 0 }),
      expect.objectContaining({ zone_id: none.id, fallbacks: 0, unfilled: 1, impressions: 0, fill_rate: 0 }),
    ]);
    // Advertisers and admins never see the rows of fallbacks.
    const admin = await call<{ rows: { campaign_id: number }[] }>(
      fx.app,
      'GET',
      `/api/admin/stats?from=${today}&to=${today}&group_by=campaign`,
      {
        token: world.admin.token,
      },
    );
    expect(admin.body.rows.map((r) => r.campaign_id)).not.toContain(0);
  });
});
