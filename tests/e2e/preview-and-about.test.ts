import { budgetDay } from '@adnet/schemas/budget-day';
import { NO_BID_WORDS, PAUSED_ZONE_WORDS } from '@adnet/schemas/no-bid-words';
import {
  advertiserHoldKey,
  advertiserPendingKey,
  balanceKey,
  campaignPoolKey,
  campaignTotalKey,
  ledgerKey,
  previewKey,
} from '@adnet/schemas/redis-keys';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { account, call, useTestApp } from '@adnet/test-support/admin';
import type { Account } from '@adnet/test-support/admin';
import { eventually, startEngine, streamedEvents } from '@adnet/test-support/engine';
import type { TestEngine } from '@adnet/test-support/engine';
import { World } from '@adnet/test-support/world';

// The live preview (GET /preview/<subid>, tokens from POST /api/pub/zones/{id}/preview) serves what the zone
// would, and counts, holds and charges nothing; every ad's "About this ad" page (GET /about-ad/<ticket>) says who
// showed it and why. Real admin, engine and Redis.

const fx = useTestApp();
let engine: TestEngine;
let world: World;
let pub: Account;
let adv: Account;
let siteDomain = '';
let bannerCampaign = 0;
let nativeCampaign = 0;
const zones: Record<string, { id: number; subid: string }> = {};
const BROWSER = {
  'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/125.0 Safari/537.36',
  'accept-language': 'en-US,en;q=0.9',
};

beforeAll(async () => {
  world = await World.create(fx.app);
  adv = await world.advertiser(100_000);
  bannerCampaign = (
    await world.campaign(
      adv,
      { format: 'banner', bid_usd: 2 },
      { landing_url: 'https://shop.example.com/p?c={click_id}&k={cost}' },
    )
  ).campaign.id;
  // Capped at one impression a day: a preview that counted toward the cap would show it once only.
  nativeCampaign = (
    await world.campaign(adv, { format: 'native', bid_usd: 2, frequency_cap: { impressions: 1, period_hours: 24 } })
  ).campaign.id;
  const site = await world.site();
  pub = site.publisher;
  siteDomain = site.domain;
  const fields: Record<string, Record<string, unknown>> = {
    banner: { format: 'banner', banner_width: 300, banner_height: 250 },
    native: { format: 'native', ad_label: '  Sponsored ' },
    // No campaign has this size.
    empty: { format: 'banner', banner_width: 728, banner_height: 90 },
    paused: { format: 'banner', banner_width: 300, banner_height: 250 },
  };
  for (const [name, f] of Object.entries(fields)) {
    const z = await call<{ id: number; subid: string }>(fx.app, 'POST', '/api/pub/zones', {
      token: pub.token,
      json: { site_id: site.id, name, ...f },
    });
    expect(z.status).toBe(201);
    zones[name] = z.body;
  }
  await call(fx.app, 'POST', `/api/pub/zones/${zones.paused?.id}/pause`, { token: pub.token });
  engine = await startEngine(fx.redis.url, { NETWORK_CONTACT: 'abuse@adnet.example' });
  await eventually(
    () =>
      engine.engine.mirror.index?.zones.get(zones.paused?.subid ?? '')?.serving === false &&
      engine.engine.mirror.index.candidateCount === 2,
  );
  await new Promise((r) => setTimeout(r, 300)); // first budget slices
});
afterAll(async () => {
  await engine?.stop();
});

const mint = (zoneId: number, token = pub.token) =>
  call<{ token: string; expires_at: string }>(fx.app, 'POST', `/api/pub/zones/${zoneId}/preview`, { token });

/** What /preview answers: an ad, `{preview_empty}`, or an error. */
interface PreviewBody {
  preview?: boolean;
  impression_id?: string;
  click_url?: string;
  preview_empty?: { reason: string; text: string };
  code?: string;
}
async function preview(zone: string, token: string) {
  // With a first-party id, as the widget's /imp carries one: a preview that took the viewer would count its caps.
  const res = await fetch(`${engine.base}/preview/${zone}?t=${token}&u=AAAAAAAAAAAAAAAAAAAAAA`, { headers: BROWSER });
  return {
    status: res.status,
    cors: res.headers.get('access-control-allow-origin'),
    body: (await res.json()) as PreviewBody,
  };
}

/** Everything a served, counted or charged ad of the advertiser's would move in Redis, whatever each key holds. */
async function moneyAndCounts(): Promise<unknown> {
  const r = fx.app.svc.redis;
  const day = budgetDay(Date.now());
  const read = async (key: string): Promise<unknown> => {
    const type = await r.type(key);
    if (type === 'hash') return r.hgetall(key);
    if (type === 'list') return r.lrange(key, 0, -1);
    if (type === 'zset') return r.zrange(key, 0, -1, 'WITHSCORES');
    if (type === 'set') return (await r.smembers(key)).sort();
    if (type === 'stream') return r.xrange(key, '-', '+');
    return type === 'none' ? null : r.get(key);
  };
  const keys = [
    ...[bannerCampaign, nativeCampaign].flatMap((c) => [campaignPoolKey(c, day), campaignTotalKey(c)]),
    balanceKey(adv.id),
    advertiserHoldKey(adv.id),
    advertiserPendingKey(adv.id),
    ledgerKey(adv.id),
  ];
  const [fcap, counted] = await Promise.all([r.keys('fcap:*'), r.keys('counted:*')]);
  // The engine's own slices of the pools (budget/budget-slices.ts): what a take would lower before Redis hears of it.
  const slices = (engine.engine.budget as unknown as { campaigns: Map<string, { local: number; outstanding: number }> })
    .campaigns;
  const local = [bannerCampaign, nativeCampaign].map((c) => {
    const s = slices.get(campaignPoolKey(c, day));
    return s && [s.local, s.outstanding];
  });
  return { keys: await Promise.all(keys.map(read)), fcap, counted, local };
}

describe('ad_label on zones', () => {
  it('defaults to "Ad", keeps the publisher\'s wording trimmed, and refuses a blank or long one naming the field', async () => {
    const got = await call<{ ad_label: string }>(fx.app, 'GET', `/api/pub/zones/${zones.banner?.id}`, {
      token: pub.token,
    });
    expect(got.body.ad_label).toBe('Ad');
    const native = await call<{ ad_label: string }>(fx.app, 'GET', `/api/pub/zones/${zones.native?.id}`, {
      token: pub.token,
    });
    expect(native.body.ad_label).toBe('Sponsored');
    for (const ad_label of ['', '   ', 'x'.repeat(25)]) {
      const r = await call<{ errors?: Record<string, string> }>(fx.app, 'PATCH', `/api/pub/zones/${zones.banner?.id}`, {
        token: pub.token,
        json: { ad_label },
      });
      expect(r.status, JSON.stringify(ad_label)).toBe(400);
      expect(JSON.stringify(r.body)).toContain('ad_label');
    }
    const script = await (await fetch(`${engine.base}/w/${zones.native?.subid}.js`)).text();
    expect(script).toContain('"label":"Sponsored"');
  });
});

describe('POST /api/pub/zones/{id}/preview', () => {
  it('mints a 128-bit token for 15 minutes, kept in Redis for the zone alone', async () => {
    const r = await mint(zones.banner?.id ?? 0);
    expect(r.status).toBe(200);
    expect(r.body.token).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(Date.parse(r.body.expires_at) - Date.now()).toBeGreaterThan(14 * 60_000);
    expect(await fx.app.svc.redis.get(previewKey(r.body.token))).toBe(zones.banner?.subid);
    const ttl = await fx.app.svc.redis.ttl(previewKey(r.body.token));
    expect(ttl).toBeGreaterThan(880);
    expect(ttl).toBeLessThanOrEqual(900);
  });

  it("refuses another publisher's zone (403) and an unknown one (404)", async () => {
    const other = await account(fx.app, 'publisher');
    expect((await mint(zones.banner?.id ?? 0, other.token)).status).toBe(403);
    expect((await mint(999_999)).status).toBe(404);
    expect((await mint(zones.banner?.id ?? 0, adv.token)).status).toBe(403);
  });
});

describe('GET /preview/<subid>', () => {
  it("answers the zone's ad as a preview, and the campaign's money, counts and caps do not move", async () => {
    const before = await moneyAndCounts();
    const eventsBefore = (await streamedEvents(fx.app.svc.redis, engine)).length;
    const banner = (await mint(zones.banner?.id ?? 0)).body.token;
    const native = (await mint(zones.native?.id ?? 0)).body.token;
    for (let i = 0; i < 3; i++) {
      const b = await preview(zones.banner?.subid ?? '', banner);
      expect(b.status).toBe(200);
      expect(b.cors).toBe('*');
      expect(b.body).toMatchObject({
        preview: true,
        format: 'banner',
        beacon_url: '',
        creative: { title: 'Great offer' },
      });
      // The landing itself, macros filled as a preview's: no click is counted on the way, and no cost is named.
      expect(b.body.click_url).toBe('https://shop.example.com/p?c=preview&k=');
      // A capped campaign's ad, again and again: the previews never reach its cap.
      const n = await preview(zones.native?.subid ?? '', native);
      expect(n.body).toMatchObject({ preview: true, format: 'native' });
    }
    const b = await preview(zones.banner?.subid ?? '', banner);
    // The preview's ticket is no tracking ticket: a beacon, a pixel or a click made of it counts nothing.
    const ticket = b.body.impression_id ?? '';
    expect((await fetch(`${engine.base}/b/${ticket}`, { headers: BROWSER })).status).toBe(404);
    expect((await fetch(`${engine.base}/openrtb/imptracker/${ticket}`)).status).toBeGreaterThanOrEqual(400);
    // It still tells the publisher who would show the ad.
    const about = await fetch(`${engine.base}/about-ad/${ticket}`);
    expect(about.status).toBe(200);
    expect(await about.text()).toContain('This is a preview');
    await new Promise((r) => setTimeout(r, 500)); // a flush of spend and events, were there any
    expect(await moneyAndCounts()).toEqual(before);
    expect((await streamedEvents(fx.app.svc.redis, engine)).length).toBe(eventsBefore);
  });

  it('says why nothing fills, in words: no campaign of the size, a paused zone', async () => {
    const empty = await preview(zones.empty?.subid ?? '', (await mint(zones.empty?.id ?? 0)).body.token);
    expect(empty.status).toBe(200);
    expect(empty.body).toEqual({ preview_empty: { reason: 'no_candidates', text: NO_BID_WORDS.no_candidates } });
    const paused = await preview(zones.paused?.subid ?? '', (await mint(zones.paused?.id ?? 0)).body.token);
    expect(paused.body).toEqual({ preview_empty: { reason: 'zone_not_serving', text: PAUSED_ZONE_WORDS } });
  });

  it("refuses an unknown, expired or other zone's token with 403, CORS open", async () => {
    const token = (await mint(zones.banner?.id ?? 0)).body.token;
    const other = await preview(zones.native?.subid ?? '', token);
    expect([other.status, other.cors, other.body.code]).toEqual([403, '*', 'forbidden']);
    expect((await preview(zones.banner?.subid ?? '', 'A'.repeat(22))).status).toBe(403);
    expect((await preview(zones.banner?.subid ?? '', 'not a token')).status).toBe(403);
    expect((await preview(zones.banner?.subid ?? '', '')).status).toBe(403);
    await fx.app.svc.redis.del(previewKey(token)); // as its 15 minutes running out would
    expect((await preview(zones.banner?.subid ?? '', token)).status).toBe(403);
  });
});

describe('GET /about-ad/<ticket>', () => {
  it('names the network, the advertiser, the landing domain, the site and why, in a page that runs nothing', async () => {
    const res = await fetch(`${engine.base}/imp?z=${zones.banner?.subid}&fp=fingerprint-1&s=e30`, { headers: BROWSER });
    expect(res.status).toBe(200);
    const ad = (await res.json()) as { impression_id: string };
    const about = await fetch(`${engine.base}/about-ad/${ad.impression_id}`);
    expect(about.status).toBe(200);
    expect(about.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(about.headers.get('content-security-policy')).toMatch(/^default-src 'none'/);
    expect(about.headers.get('content-security-policy')).not.toContain('script-src');
    expect(about.headers.get('referrer-policy')).toBe('no-referrer');
    const html = await about.text();
    expect(html).toContain(new URL(engine.base).hostname);
    expect(html).toContain(`Advertiser account ${adv.id}, advertising shop.example.com.`);
    expect(html).toContain(siteDomain);
    expect(html).toContain('a 300x250 banner ad');
    expect(html).toContain('No personal profile of you was used.');
    expect(html).toContain('mailto:abuse@adnet.example');
    expect(html).not.toContain('<script');
  });

  it('answers a forged, tampered or unknown link with a plain 404 page', async () => {
    const res = await fetch(`${engine.base}/imp?z=${zones.banner?.subid}&fp=fingerprint-2&s=e30`, { headers: BROWSER });
    const ticket = ((await res.json()) as { impression_id: string }).impression_id;
    const [payload, sig] = ticket.split('.') as [string, string];
    for (const forged of [
      `${payload}.${sig.slice(0, -1)}${sig.endsWith('A') ? 'B' : 'A'}`,
      `${Buffer.from('[1,2]').toString('base64url')}.${sig}`,
      'nothing',
      'd.e30.x',
    ]) {
      const about = await fetch(`${engine.base}/about-ad/${forged}`);
      expect(about.status, forged).toBe(404);
      expect(about.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(await about.text()).toContain('Ad not found');
    }
  });
});
