import { createHmac } from 'node:crypto';
import { audienceMembersKey } from '@adnet/schemas/redis-keys';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, useTestApp } from '@adnet/test-support/admin';
import type { Account } from '@adnet/test-support/admin';
import { eventually, startEngine, streamedEvents } from '@adnet/test-support/engine';
import type { TestEngine } from '@adnet/test-support/engine';
import { World } from '@adnet/test-support/world';
import { userKeyOf } from '@adnet/engine/frequency-caps';
import { decodeTicket } from '@adnet/engine/signed-token';

/** The test engines' tracking secret (test-support/engine.ts). */
const SECRET = 't'.repeat(40);

// Audiences through the real admin API, two real engines on one Redis and real HTTP (docs/audiences.md): a visitor
// who clicked campaign A is included by campaign B, which then serves that visitor on either engine and nobody
// else; a campaign excludes its own viewers; the pixel makes members by our cookie; memberships end; a request
// that says GDPR applies without consent makes no member; bad inputs are refused naming the field.

const fx = useTestApp();
let world: World;
let adv: Account;
let other: Account;
let engines: TestEngine[] = [];
let nativeZone = '';
let bannerZone = '';
let campaignA = 0;
let campaignB = 0;
let pixelCampaign = 0;
let clickedA = 0;
let viewedA = 0;
let pixelAudience = 0;
let pixelUrl = '';
const BROWSER = {
  'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/125.0 Safari/537.36',
};
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** Past the engines' refresh of a visitor's copy (AUDIENCE_REFRESH_MS). */
const PAST_REFRESH = 1_100;

interface Served {
  /** The campaign, read from the signed ticket. */
  campaign_id: number;
  beacon_url: string;
  click_url: string;
}

const audience = (json: Record<string, unknown>, token = adv.token) =>
  call<{ id: number; pixel_url: string | null; errors?: Record<string, string> }>(
    fx.app,
    'POST',
    '/api/adv/audiences',
    {
      token,
      json,
    },
  );

beforeAll(async () => {
  world = await World.create(fx.app);
  adv = await world.advertiser(1_000_000);
  other = await world.advertiser(1_000_000);
  nativeZone = (await world.zone({ format: 'native' })).subid;
  bannerZone = (await world.zone({ format: 'banner', banner_width: 300, banner_height: 250 })).subid;
  campaignA = (await world.campaign(adv, { format: 'native', bid_usd: 1 })).campaign.id;
  campaignB = (await world.campaign(adv, { format: 'native', bid_usd: 3 })).campaign.id;
  const c = await audience({ name: 'Clicked A', source: 'clicked', campaign_ids: [campaignA], lifetime_days: 1 });
  const v = await audience({ name: 'Viewed A', source: 'viewed', campaign_ids: [campaignA], lifetime_days: 30 });
  const p = await audience({ name: 'Our site', source: 'pixel', lifetime_days: 7 });
  expect([c.status, v.status, p.status]).toEqual([201, 201, 201]);
  [clickedA, viewedA, pixelAudience] = [c.body.id, v.body.id, p.body.id];
  pixelUrl = p.body.pixel_url as string;
  // B, the higher bid, serves only A's clickers; A never serves a visitor twice.
  const b = await call(fx.app, 'PATCH', `/api/adv/campaigns/${campaignB}`, {
    token: adv.token,
    json: { audiences_include: [clickedA] },
  });
  expect(b.status).toBe(200);
  expect(b.body.audiences_include).toEqual([clickedA]);
  const a = await call(fx.app, 'PATCH', `/api/adv/campaigns/${campaignA}`, {
    token: adv.token,
    json: { audiences_exclude: [viewedA] },
  });
  expect(a.status).toBe(200);
  pixelCampaign = (await world.campaign(adv, { format: 'banner', bid_usd: 2, audiences_include: [pixelAudience] }))
    .campaign.id;
  engines = await Promise.all([startEngine(fx.redis.url), startEngine(fx.redis.url)]);
  for (const e of engines)
    await eventually(() => {
      const index = e.engine.mirror.index;
      return (
        index?.zones.get(nativeZone)?.serving === true &&
        index.zones.get(bannerZone)?.serving === true &&
        index.candidateCount === 3 &&
        index.audiences.pixels.size === 1 &&
        index.campaigns.get(campaignA)?.audiences_exclude?.length === 1
      );
    });
}, 60_000);
afterAll(async () => {
  await Promise.all(engines.map((e) => e.stop()));
});

let request = 0;
/** One ad request at engine `at`; the served ad, or undefined for none. */
async function imp(
  zone: string,
  at: number,
  o: { user?: string; cookie?: string; query?: string } = {},
): Promise<Served | undefined> {
  const u = o.user ? `&u=${o.user}` : '';
  const headers: Record<string, string> = { ...BROWSER, ...(o.cookie ? { cookie: o.cookie } : {}) };
  const r = await fetch(`${engines[at]?.base}/imp?z=${zone}&fp=fp-${++request}${u}${o.query ?? ''}`, { headers });
  if (r.status === 204) return undefined;
  expect(r.status).toBe(200);
  const ad = (await r.json()) as { impression_id: string; beacon_url: string; click_url: string };
  const ticket = decodeTicket(SECRET, ad.impression_id);
  return { ...ad, campaign_id: ticket?.campaignId ?? 0 };
}

/** The ad rendered (its beacon), then clicked after a second, as a person would. */
async function viewAndClick(ad: Served, at: number): Promise<string> {
  const base = engines[at]?.base as string;
  expect((await fetch(ad.beacon_url.replace(/^http:\/\/[^/]+/, base), { headers: BROWSER })).status).toBe(200);
  await pause(1_050);
  const click = await fetch(
    `${ad.click_url.replace(/^http:\/\/[^/]+/, base)}?ttc=900&x=10&y=12&focus=1&fp=fingerprint${request}`,
    {
      headers: BROWSER,
      redirect: 'manual',
    },
  );
  expect(click.status).toBe(302);
  return /c=([0-9a-f-]{36})/.exec(click.headers.get('location') ?? '')?.[1] ?? '';
}

const memberships = async (id: string) => fx.app.svc.redis.hgetall(audienceMembersKey(userKeyOf(id)));

describe('audiences on the serving path', () => {
  it('serves the campaign including "clicked A" to the visitor who clicked A, on either engine, and not to another', async () => {
    const alice = 'alice-first-party-id-01';
    const bob = 'bob-first-party-id-0001';
    const first = await imp(nativeZone, 0, { user: alice });
    expect(first?.campaign_id).toBe(campaignA);
    await viewAndClick(first as Served, 0);
    const held = await memberships(`w:${alice}`);
    expect(Object.keys(held).map(Number).sort()).toEqual([clickedA, viewedA].sort((x, y) => x - y));
    // A membership lasts the audience's lifetime from the event.
    const clickedEnds = Number(held[String(clickedA)]);
    expect(Math.abs(clickedEnds - (Date.now() + 86_400_000))).toBeLessThan(60_000);
    await pause(PAST_REFRESH);
    for (const at of [0, 1, 1, 0]) {
      // The first ask of a visitor an engine has not seen yet reads it in the background: asked again, it knows.
      let ad = await imp(nativeZone, at, { user: alice });
      if (ad?.campaign_id !== campaignB) {
        await pause(50);
        ad = await imp(nativeZone, at, { user: alice });
      }
      expect(ad?.campaign_id).toBe(campaignB);
    }
    for (const at of [0, 1]) {
      await imp(nativeZone, at, { user: bob });
      await pause(50);
      expect((await imp(nativeZone, at, { user: bob }))?.campaign_id).toBe(campaignA);
    }
  }, 30_000);

  it('keeps a campaign from its own viewers (exclude), with the no-bid reason "audience"', async () => {
    const carol = 'carol-first-party-id-01';
    const ad = await imp(nativeZone, 1, { user: carol });
    expect(ad?.campaign_id).toBe(campaignA);
    expect((await fetch(ad?.beacon_url as string, { headers: BROWSER })).status).toBe(200);
    await eventually(async () => Object.keys(await memberships(`w:${carol}`)).includes(String(viewedA)));
    await pause(PAST_REFRESH);
    for (const at of [0, 1]) {
      await imp(nativeZone, at, { user: carol });
      await pause(50);
      // A is excluded (carol saw it), B not included (she never clicked): nothing.
      expect(await imp(nativeZone, at, { user: carol })).toBeUndefined();
    }
    await Promise.all(engines.map((e) => e.engine.events.flush()));
    const events = await streamedEvents(fx.app.svc.redis);
    expect(events.some((e) => e.type === 'nobid' && e.reason === 'audience')).toBe(true);
  }, 30_000);

  it('ends a membership at its end', async () => {
    const alice = 'alice-first-party-id-01';
    // As a day later: the membership's end is past (the engines compare it with their clock).
    await fx.app.svc.redis.hset(audienceMembersKey(userKeyOf(`w:${alice}`)), String(clickedA), Date.now() - 1);
    await pause(PAST_REFRESH);
    for (const at of [0, 1]) {
      await imp(nativeZone, at, { user: alice });
      await pause(50);
      // No longer a clicker of A, still a viewer of A: neither B nor A.
      expect(await imp(nativeZone, at, { user: alice })).toBeUndefined();
    }
  }, 30_000);

  it('makes members through the pixel by our cookie, which the widget request then carries', async () => {
    const px = await fetch(pixelUrl.replace(/^http:\/\/[^/]+/, engines[0]?.base as string), { headers: BROWSER });
    expect(px.status).toBe(200);
    expect(px.headers.get('content-type')).toBe('image/gif');
    const cookie = (px.headers.get('set-cookie') ?? '').split(';')[0] as string;
    expect(cookie).toMatch(/^adnet_vid=[A-Za-z0-9_-]{22}$/);
    expect(px.headers.get('set-cookie')).toContain('HttpOnly');
    const id = `c:${cookie.slice('adnet_vid='.length)}`;
    expect(Object.keys(await memberships(id))).toEqual([String(pixelAudience)]);
    const dave = 'dave-first-party-id-001';
    const erin = 'erin-first-party-id-001';
    for (const at of [1, 0]) {
      await imp(bannerZone, at, { user: dave, cookie });
      await pause(50);
      expect((await imp(bannerZone, at, { user: dave, cookie }))?.campaign_id).toBe(pixelCampaign);
      // Without the cookie the same browser is nobody the pixel saw; nor is a request without a first-party id.
      expect(await imp(bannerZone, at, { user: erin })).toBeUndefined();
      expect(await imp(bannerZone, at, { cookie })).toBeUndefined();
    }
    // The widget asks with credentials (so the cookie comes): the answer names the page's origin, never `*`.
    for (const zone of [bannerZone, 'no-such-zone']) {
      const r = await fetch(`${engines[0]?.base}/imp?z=${zone}&fp=fp-origin&u=${dave}`, {
        headers: { ...BROWSER, cookie, origin: 'https://news.example' },
      });
      expect(r.headers.get('access-control-allow-origin')).toBe('https://news.example');
      expect(r.headers.get('access-control-allow-credentials')).toBe('true');
    }
    // A browser that comes back keeps its id.
    const again = await fetch(pixelUrl.replace(/^http:\/\/[^/]+/, engines[1]?.base as string), {
      headers: { ...BROWSER, cookie },
    });
    expect((again.headers.get('set-cookie') ?? '').split(';')[0]).toBe(cookie);
  }, 30_000);

  it('answers the same image and headers for a known, an unknown and a malformed token: no oracle', async () => {
    const base = engines[0]?.base as string;
    const cookie = 'adnet_vid=AAAAAAAAAAAAAAAAAAAAAA';
    const known = new URL(pixelUrl).pathname;
    const answers = await Promise.all(
      [known, '/px/BBBBBBBBBBBBBBBBBBBBBB.gif', '/px/x.gif', '/px/%00.gif', '/px/'].map(async (path) => {
        const r = await fetch(`${base}${path}`, { headers: { ...BROWSER, cookie } });
        const headers = [...r.headers].filter(([k]) => k !== 'date' && k !== 'x-request-id');
        return { status: r.status, headers, body: Buffer.from(await r.arrayBuffer()).toString('base64') };
      }),
    );
    for (const a of answers.slice(1, 4)) expect(a).toEqual(answers[0]);
    expect(Object.keys(await memberships('c:AAAAAAAAAAAAAAAAAAAAAA'))).toEqual([String(pixelAudience)]);
  });

  it("makes a member of a converted audience when the advertiser's postback approves the click's conversion", async () => {
    const converted = await audience({
      name: 'Converted on A',
      source: 'converted',
      campaign_ids: [campaignA],
      lifetime_days: 90,
    });
    expect(converted.status).toBe(201);
    const grace = 'grace-first-party-id-01';
    const ad = await imp(nativeZone, 0, { user: grace });
    expect(ad?.campaign_id).toBe(campaignA);
    const clickId = await viewAndClick(ad as Served, 1);
    expect(Object.keys(await memberships(`w:${grace}`))).not.toContain(String(converted.body.id));
    const secret = String((await call(fx.app, 'GET', '/api/adv/profile', { token: adv.token })).body.postback_secret);
    const postback = async (status: string) => {
      const f = { click_id: clickId, payout: '700', status, txid: 'T-audience' };
      const sig = createHmac('sha256', secret).update(`${f.click_id}|${f.payout}|${f.status}|${f.txid}`).digest('hex');
      const r = await fetch(`${fx.app.base}/postback/in`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ ...f, secret, sig }).toString(),
      });
      expect(r.status).toBe(200);
    };
    // Pending is not a conversion yet; approved is.
    await postback('pending');
    expect(Object.keys(await memberships(`w:${grace}`))).not.toContain(String(converted.body.id));
    await postback('approved');
    const ends = Number((await memberships(`w:${grace}`))[String(converted.body.id)]);
    expect(Math.abs(ends - (Date.now() + 90 * 86_400_000))).toBeLessThan(60_000);
  }, 30_000);

  it('makes no member of a visitor whose request says GDPR applies without consent', async () => {
    const frank = 'frank-first-party-id-01';
    const ad = await imp(nativeZone, 0, { user: frank, query: '&gdpr=1' });
    // A serves (its exclude list cannot be checked without the viewer), and counts, but nobody becomes a member.
    expect(ad?.campaign_id).toBe(campaignA);
    await viewAndClick(ad as Served, 1);
    await Promise.all(engines.map((e) => e.engine.events.flush()));
    const clicks = (await streamedEvents(fx.app.svc.redis)).filter((e) => e.type === 'click');
    // The click was a valid one, which would have made a member had the request allowed it.
    expect(clicks.at(-1)?.invalid).toBe(false);
    expect(await memberships(`w:${frank}`)).toEqual({});
    const px = await fetch(`${pixelUrl.replace(/^http:\/\/[^/]+/, engines[0]?.base as string)}?gdpr=1&gdpr_consent=`, {
      headers: { ...BROWSER, cookie: 'adnet_vid=FFFFFFFFFFFFFFFFFFFFFF' },
    });
    expect(px.status).toBe(200);
    expect(px.headers.get('set-cookie')).toBeNull();
    expect(await memberships('c:FFFFFFFFFFFFFFFFFFFFFF')).toEqual({});
  }, 30_000);
});

describe('the audience API', () => {
  it('lists, gets and deletes own audiences; one a campaign names cannot go', async () => {
    const list = await call<{ audiences: { id: number; source: string; pixel_url: string | null }[] }>(
      fx.app,
      'GET',
      '/api/adv/audiences',
      { token: adv.token },
    );
    expect(list.status).toBe(200);
    expect(list.body.audiences.map((a) => a.id).slice(0, 3)).toEqual([clickedA, viewedA, pixelAudience]);
    expect(list.body.audiences.filter((a) => a.pixel_url !== null).map((a) => a.source)).toEqual(['pixel']);
    expect(pixelUrl).toMatch(/\/px\/[A-Za-z0-9_-]{22}\.gif$/);
    const one = await call(fx.app, 'GET', `/api/adv/audiences/${clickedA}`, { token: adv.token });
    expect(one.body).toMatchObject({ id: clickedA, source: 'clicked', campaign_ids: [campaignA], lifetime_days: 1 });
    expect((await call(fx.app, 'GET', `/api/adv/audiences/${clickedA}`, { token: other.token })).status).toBe(403);
    expect((await call(fx.app, 'DELETE', `/api/adv/audiences/${clickedA}`, { token: adv.token })).status).toBe(409);
    const spare = await audience({ name: 'Spare', source: 'converted', campaign_ids: [campaignA], lifetime_days: 3 });
    expect((await call(fx.app, 'DELETE', `/api/adv/audiences/${spare.body.id}`, { token: adv.token })).status).toBe(
      200,
    );
    expect((await call(fx.app, 'GET', `/api/adv/audiences/${spare.body.id}`, { token: adv.token })).status).toBe(404);
  });

  it("refuses bad input with 400 naming the field, and another advertiser's campaign or audience with 403", async () => {
    const bad = async (json: Record<string, unknown>) => {
      const r = await audience(json);
      expect(r.status).toBe(400);
      return Object.keys(r.body.errors ?? {});
    };
    expect(await bad({ name: 'x', source: 'bought', campaign_ids: [campaignA], lifetime_days: 5 })).toEqual(['source']);
    expect(await bad({ name: 'x', source: 'clicked', campaign_ids: [campaignA], lifetime_days: 0 })).toEqual([
      'lifetime_days',
    ]);
    expect(await bad({ name: 'x', source: 'clicked', campaign_ids: [campaignA], lifetime_days: 541 })).toEqual([
      'lifetime_days',
    ]);
    expect(await bad({ name: 'x', source: 'viewed', lifetime_days: 5 })).toEqual(['campaign_ids']);
    expect(await bad({ name: 'x', source: 'pixel', campaign_ids: [campaignA], lifetime_days: 5 })).toEqual([
      'campaign_ids',
    ]);
    expect(await bad({ name: '', source: 'clicked', campaign_ids: ['a'], lifetime_days: 'x' })).toEqual([
      'name',
      'campaign_ids.0',
      'lifetime_days',
    ]);
    expect(await bad({ name: 'x', source: 'clicked', campaign_ids: [999_999], lifetime_days: 5 })).toEqual([
      'campaign_ids',
    ]);
    const theirs = (await world.campaign(other, { format: 'native', bid_usd: 0.5 })).campaign.id;
    expect(
      (await audience({ name: 'x', source: 'clicked', campaign_ids: [campaignA, theirs], lifetime_days: 5 })).status,
    ).toBe(403);
    const theirAudience = await audience(
      { name: 'theirs', source: 'viewed', campaign_ids: [theirs], lifetime_days: 5 },
      other.token,
    );
    expect(theirAudience.status).toBe(201);
    const patch = (json: Record<string, unknown>) =>
      call<{ errors?: Record<string, string> }>(fx.app, 'PATCH', `/api/adv/campaigns/${campaignA}`, {
        token: adv.token,
        json,
      });
    expect((await patch({ audiences_include: [theirAudience.body.id] })).status).toBe(403);
    const unknown = await patch({ audiences_exclude: [999_999] });
    expect(unknown.status).toBe(400);
    expect(Object.keys(unknown.body.errors ?? {})).toEqual(['audiences_exclude']);
    const both = await patch({ audiences_include: [viewedA] });
    expect(both.status).toBe(400);
    expect(Object.keys(both.body.errors ?? {})).toEqual(['audiences_exclude']);
    const shape = await patch({ audiences_include: 'all' });
    expect(shape.status).toBe(400);
    expect(Object.keys(shape.body.errors ?? {})).toEqual(['audiences_include']);
  });
});
