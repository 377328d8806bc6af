import { World } from '@adnet/test-support/world';
import { ingestAll } from '@adnet/test-support/ingest-all';
import { eventually, startEngine } from '@adnet/test-support/engine';
import type { TestEngine } from '@adnet/test-support/engine';
import { call, useTestApp } from '@adnet/test-support/admin';
import type { Account } from '@adnet/test-support/admin';
import type { ServedAd } from '@adnet/schemas/widget';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// Statistics by the format of the ad as served (issue 39 item 4), from real traffic through the engine and
// chDB: an opted-in banner campaign's creative shown in an interstitial zone counts as an interstitial and in
// a banner zone as a banner, a popunder campaign's visit of a direct-link zone as a direct link; the landing
// URL's {format} says the same. Pop zones in the placement report and the source lists.
const fx = useTestApp({ INGEST_FLUSH_MS: '100' }, { clickhouse: true, parts: ['ingester'] });
let engine: TestEngine;
let world: World;
let adv: Account;
let site: { id: number; domain: string; publisher: Account };
let popCampaignId = 0;
const zones: Record<string, { id: number; subid: string }> = {};
const landings: Record<string, string[]> = {};
const today = new Date().toISOString().slice(0, 10);
const UA = (n: number) =>
  `Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/125.0.${n}.0 Safari/537.36`;
const FALLBACK = 'https://fallback.example/offers';

/** One widget ad on `zone`, shown (its beacon) and, when asked, clicked: the landing URL its click went to. */
async function widgetAd(zone: string, n: number, click: boolean): Promise<void> {
  const headers = { 'user-agent': UA(n), 'x-country': 'FR', origin: `https://${site.domain}` };
  const res = await fetch(`${engine.base}/imp?z=${zones[zone]?.subid}&fp=fp-${n}`, { headers });
  expect(res.status).toBe(200);
  const served = (await res.json()) as ServedAd;
  expect((await fetch(served.beacon_url, { headers })).status).toBeLessThan(300);
  if (!click) return;
  await new Promise((r) => setTimeout(r, 1_100));
  const go = await fetch(`${served.click_url}?ttc=2000&x=5&y=5&focus=1&fp=fp-click-${n}`, {
    redirect: 'manual',
    headers,
  });
  (landings[zone] ??= []).push(go.headers.get('location') ?? '');
}

const visit = (subid: string, n: number) =>
  fetch(`${engine.base}/go/${subid}`, {
    redirect: 'manual',
    headers: { 'user-agent': UA(n), referer: 'https://social.example/post/1' },
  });

beforeAll(async () => {
  world = await World.create(fx.app);
  adv = await world.advertiser(100_000);
  const landing = { landing_url: 'https://shop.example.com/p?c={click_id}&f={format}' };
  // The opted-in banner outbids the interstitial campaign in the interstitial zone: its creative fills it.
  await world.campaign(adv, { format: 'banner', bid_usd: 4, interstitial: true }, landing);
  await world.campaign(adv, { format: 'interstitial', bid_usd: 3 }, landing);
  popCampaignId = (await world.campaign(adv, { format: 'popunder', bid_usd: 8 }, landing)).campaign.id;
  site = await world.site();
  zones.interstitial = await world.zone({ format: 'interstitial' }, site);
  zones.banner = await world.zone({ format: 'banner', banner_width: 300, banner_height: 250 }, site);
  zones.direct = await world.zone({ format: 'direct_link', fallback: { type: 'url', value: FALLBACK } }, site);
  engine = await startEngine(fx.redis.url);
  await eventually(
    () =>
      engine.engine.mirror.index?.zones.get(zones.direct?.subid ?? '')?.serving === true &&
      engine.engine.mirror.index.candidateCount === 3,
  );
  await new Promise((r) => setTimeout(r, 300));
  await widgetAd('interstitial', 1, true);
  await widgetAd('interstitial', 2, false);
  await widgetAd('banner', 3, true);
  const pop = await visit(zones.direct?.subid ?? '', 4);
  expect(pop.status).toBe(302);
  landings.direct = [pop.headers.get('location') ?? ''];
  await ingestAll(fx.app, [engine.engine]);
}, 120_000);
afterAll(() => engine?.stop());

type Rows = { rows: Record<string, number | string>[] };
const byFormat = (rows: Rows['rows']) => Object.fromEntries(rows.map((r) => [String(r.format), r]));

describe('statistics by format', () => {
  it('fills {format} in the landing URL with the format as served', () => {
    expect(landings.interstitial?.[0]).toMatch(/^https:\/\/shop\.example\.com\/p\?c=[0-9a-f-]{36}&f=interstitial$/);
    expect(landings.banner?.[0]).toMatch(/&f=banner$/);
    expect(landings.direct?.[0]).toMatch(/&f=direct_link$/);
  });

  it("splits the advertiser's, the publisher's and our figures by the format as served, in JSON", async () => {
    const q = `from=${today}&to=${today}&group_by=format`;
    const expected = {
      interstitial: { impressions: 2, clicks: 1 },
      banner: { impressions: 1, clicks: 1 },
      direct_link: { impressions: 1, clicks: 1 },
    };
    const advRows = await call<Rows>(fx.app, 'GET', `/api/adv/stats?${q}`, { token: adv.token });
    expect(advRows.status).toBe(200);
    expect(byFormat(advRows.body.rows)).toMatchObject(expected);
    expect(advRows.body.rows).toHaveLength(3);
    const pub = await call<Rows>(fx.app, 'GET', `/api/pub/stats?${q}`, { token: site.publisher.token });
    expect(pub.status).toBe(200);
    expect(byFormat(pub.body.rows)).toMatchObject(expected);
    const admin = await call<Rows>(fx.app, 'GET', `/api/admin/stats?${q}`, { token: world.admin.token });
    expect(admin.status).toBe(200);
    expect(byFormat(admin.body.rows)).toMatchObject(expected);
  });

  it('exports the same rows as CSV', async () => {
    const csv = await fetch(`${fx.app.base}/api/adv/stats?from=${today}&to=${today}&group_by=format&format=csv`, {
      headers: { authorization: `Bearer ${adv.token}` },
    });
    expect(csv.status).toBe(200);
    const lines = (await csv.text()).trim().split('\n');
    expect(lines[0]?.startsWith('format,impressions,viewable_impressions,clicks,')).toBe(true);
    const counts = Object.fromEntries(
      lines.slice(1).map((l) => {
        const [format, impressions, , clicks] = l.split(',');
        return [format, [Number(impressions), Number(clicks)]];
      }),
    );
    expect(counts).toEqual({ banner: [1, 1], direct_link: [1, 1], interstitial: [2, 1] });
  });
});

describe('pop zones in the placement report and the source lists', () => {
  it("names the direct-link zone's row by zone, site and source, and its subid by lookup", async () => {
    const q = `from=${today}&to=${today}&group_by=zone,site,source`;
    const r = await call<Rows>(fx.app, 'GET', `/api/adv/stats?${q}`, { token: adv.token });
    expect(r.body.rows.find((row) => row.zone_id === zones.direct?.id)).toMatchObject({
      zone_subid: zones.direct?.subid,
      site_id: site.id,
      source: site.domain,
      impressions: 1,
      clicks: 1,
    });
    const lookup = await call<{ zones: { id: number; subid: string }[] }>(
      fx.app,
      'GET',
      `/api/adv/sources/zones?ids=${zones.direct?.id}`,
      { token: adv.token },
    );
    expect(lookup.body.zones).toEqual([
      { id: zones.direct?.id, subid: zones.direct?.subid, site_id: site.id, name: 'zone', domain: site.domain },
    ]);
  });

  it("keeps a popunder campaign off a direct-link zone its source list excludes: the visitor gets the zone's fallback", async () => {
    const added = await call(fx.app, 'POST', `/api/adv/campaigns/${popCampaignId}/sources/add`, {
      token: adv.token,
      json: { zones: [zones.direct?.subid] },
    });
    expect(added.status).toBe(200);
    expect(added.body).toMatchObject({ sources: { mode: 'exclude', zones: [zones.direct?.subid] } });
    await eventually(
      async () =>
        (await visit(zones.direct?.subid ?? '', 50 + Math.floor(Math.random() * 1000))).headers.get('location') ===
        FALLBACK,
    );
  });
});

describe('interstitial zones, campaigns and creatives: bad input', () => {
  it("names each zone field out of range or not for the zone's format, and fills in the defaults", async () => {
    const bad = (json: Record<string, unknown>) =>
      call<{ errors: Record<string, string> }>(fx.app, 'POST', '/api/pub/zones', {
        token: site.publisher.token,
        json: { site_id: site.id, name: 'z', format: 'interstitial', ...json },
      });
    expect(
      await bad({ interstitial_delay_sec: 61, interstitial_close_after_sec: -1, interstitial_freq_cap_hours: 0 }),
    ).toMatchObject({
      status: 400,
      body: {
        errors: {
          interstitial_delay_sec: 'must be at most 60',
          interstitial_close_after_sec: 'must be at least 0',
          interstitial_freq_cap_hours: 'must be at least 1',
        },
      },
    });
    expect(
      await bad({ interstitial_close_after_sec: 11, interstitial_freq_cap_hours: 169, interstitial_delay_sec: 1.5 }),
    ).toMatchObject({
      status: 400,
      body: {
        errors: {
          interstitial_close_after_sec: 'must be at most 10',
          interstitial_freq_cap_hours: 'must be at most 168',
          interstitial_delay_sec: 'must be an integer',
        },
      },
    });
    expect(await bad({ format: 'native', interstitial_delay_sec: 5 })).toMatchObject({
      status: 400,
      body: { errors: { interstitial_delay_sec: 'is only for interstitial zones' } },
    });
    const made = await bad({});
    expect(made.body).toMatchObject({
      interstitial_delay_sec: 0,
      interstitial_close_after_sec: 3,
      interstitial_freq_cap_hours: 24,
    });
    const id = (made.body as unknown as { id: number }).id;
    const update = (json: Record<string, unknown>) =>
      call(fx.app, 'PATCH', `/api/pub/zones/${id}`, { token: site.publisher.token, json });
    expect(await update({ interstitial_delay_sec: 100 })).toMatchObject({
      status: 400,
      body: { errors: { interstitial_delay_sec: 'must be at most 60' } },
    });
    expect(await update({ interstitial_delay_sec: 10 })).toMatchObject({
      status: 200,
      body: { interstitial_delay_sec: 10, interstitial_close_after_sec: 3 },
    });
    // Another format's zone takes none of them, on update either.
    expect(
      await call(fx.app, 'PATCH', `/api/pub/zones/${zones.banner?.id}`, {
        token: site.publisher.token,
        json: { interstitial_freq_cap_hours: 2 },
      }),
    ).toMatchObject({
      status: 400,
      body: { errors: { interstitial_freq_cap_hours: 'is only for interstitial zones' } },
    });
  });

  it('lets only banner and native campaigns opt in, on creation and on update', async () => {
    const create = (json: Record<string, unknown>) =>
      call(fx.app, 'POST', '/api/adv/campaigns', {
        token: adv.token,
        json: { name: 'x', vertical: 'ecommerce', bid_type: 'cpm', bid_usd: 1, daily_budget_usd: 10, ...json },
      });
    for (const format of ['video', 'popunder', 'interstitial'])
      expect(await create({ format, interstitial: true }), format).toMatchObject({
        status: 400,
        body: { errors: { interstitial: expect.stringContaining('only for banner and native campaigns') } },
      });
    expect(await create({ format: 'native', interstitial: 'yes' })).toMatchObject({
      status: 400,
      body: { errors: { interstitial: 'must be true or false' } },
    });
    const native = await create({ format: 'native', interstitial: true });
    expect(native).toMatchObject({ status: 201, body: { interstitial: true } });
    const video = await create({ format: 'video' });
    expect(video.body).toMatchObject({ interstitial: false });
    const patch = (id: unknown, json: Record<string, unknown>) =>
      call(fx.app, 'PATCH', `/api/adv/campaigns/${String(id)}`, { token: adv.token, json });
    expect(await patch((video.body as { id: number }).id, { interstitial: true })).toMatchObject({
      status: 400,
      body: { errors: { interstitial: expect.stringContaining('only for banner and native campaigns') } },
    });
    expect(await patch((native.body as { id: number }).id, { interstitial: false })).toMatchObject({
      status: 200,
      body: { interstitial: false },
    });
  });

  it("refuses an interstitial creative's image of any other size, naming the field", async () => {
    const c = await call<{ id: number }>(fx.app, 'POST', '/api/adv/campaigns', {
      token: adv.token,
      json: {
        name: 'x',
        vertical: 'ecommerce',
        format: 'interstitial',
        bid_type: 'cpm',
        bid_usd: 1,
        daily_budget_usd: 10,
      },
    });
    // The world's banner picture is 300x250.
    await expect(world.creative(adv, c.body.id, 'banner')).rejects.toThrow(
      /"image":"is 300x250; interstitial images must be one of 320x480, 480x320, 768x1024, 1024x768"/,
    );
    expect(await world.creative(adv, c.body.id, 'interstitial')).toBeGreaterThan(0);
  });
});
