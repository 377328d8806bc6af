import { budgetDay } from '@adnet/schemas/budget-day';
import { balanceKey, campaignPoolKey } from '@adnet/schemas/redis-keys';
import { decodeTicket, encodeTicket } from '@adnet/engine/signed-token';
import type { BidTicket } from '@adnet/engine/signed-token';
import { spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, useTestApp } from '@adnet/test-support/admin';
import type { Account } from '@adnet/test-support/admin';
import { eventually, startEngine, streamedEvents } from '@adnet/test-support/engine';
import type { TestEngine } from '@adnet/test-support/engine';
import { World } from '@adnet/test-support/world';
import { vastVerdict } from '@adnet/test-support/hostile';

const fx = useTestApp();
let engine: TestEngine;
let world: World;
let pub: Account;
const subids: Record<string, string> = {};
const zoneIds: Record<string, number> = {};
let cpcCampaign = 0;
let advertiser: Account;
let siteDomain = '';
const BROWSER = {
  'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/125.0 Safari/537.36',
  'accept-language': 'en-US,en;q=0.9',
};

beforeAll(async () => {
  world = await World.create(fx.app);
  const adv = await world.advertiser(100_000);
  advertiser = adv;
  await world.campaign(adv, { format: 'banner', bid_usd: 2 });
  cpcCampaign = (await world.campaign(adv, { format: 'native', bid_type: 'cpc', bid_usd: 0.3 })).campaign.id;
  await world.campaign(adv, { format: 'floating_video', bid_usd: 4 });
  const site = await world.site();
  pub = site.publisher;
  siteDomain = site.domain;
  const zones: Record<string, Record<string, unknown>> = {
    banner: { format: 'banner', banner_width: 300, banner_height: 250 },
    native: { format: 'native' },
    video: { format: 'floating_video', fv_corner: 'br', fv_delay_sec: 3, fv_freq_cap_hours: 6 },
    paused: { format: 'banner', banner_width: 300, banner_height: 250 },
  };
  for (const [name, fields] of Object.entries(zones)) {
    const z = await call<{ id: number; subid: string }>(fx.app, 'POST', '/api/pub/zones', {
      token: pub.token,
      json: { site_id: site.id, name, ...fields },
    });
    subids[name] = z.body.subid;
    zoneIds[name] = z.body.id;
  }
  await call(fx.app, 'POST', `/api/pub/zones/${zoneIds.paused}/pause`, { token: pub.token });
  engine = await startEngine(fx.redis.url);
  await eventually(
    () =>
      engine.engine.mirror.index?.zones.get(subids.video ?? '')?.serving === true &&
      engine.engine.mirror.index.candidateCount === 3,
  );
  await new Promise((r) => setTimeout(r, 300)); // first budget slices
});
afterAll(async () => {
  await engine.stop();
});

interface ImpReply {
  impression_id: string;
  format: string;
  creative: { title: string; image_url: string | null };
  beacon_url: string;
  click_url: string;
}
const imp = async (z: string) => {
  const res = await fetch(`${engine.base}/imp?z=${z}&fp=fingerprint-123&s=e30`, { headers: BROWSER });
  return {
    status: res.status,
    cors: res.headers.get('access-control-allow-origin'),
    body: res.status === 200 ? ((await res.json()) as ImpReply) : undefined,
  };
};
/** An ad served and rendered: its render beacon sent as the widget sends it, from the browser it was served to. */
const rendered = async (z: string) => {
  const served = await imp(z);
  expect((await fetch(served.body?.beacon_url ?? '', { headers: BROWSER })).status).toBe(200);
  return served;
};
const click = (
  url: string,
  query = 'ttc=1200&x=40&y=20&focus=1&fp=fingerprint-123',
  headers: Record<string, string> = BROWSER,
) => fetch(`${url}?${query}`, { redirect: 'manual', headers });

const events = () => streamedEvents(fx.app.svc.redis, engine);

describe('GET /imp', () => {
  it('answers a display zone with a creative and a click link, CORS open', async () => {
    const r = await imp(subids.banner ?? '');
    expect(r.status).toBe(200);
    expect(r.cors).toBe('*');
    expect(r.body).toMatchObject({
      format: 'banner',
      creative: { title: 'Great offer', image_url: expect.stringContaining('/media/') },
    });
    expect(r.body?.click_url).toMatch(/\/c\/[^/]+\/[A-Za-z0-9_-]{24}$/);
  });

  it('204 for unknown, paused and video zones', async () => {
    for (const z of ['nope', subids.paused ?? '', subids.video ?? '', '']) expect((await imp(z)).status).toBe(204);
  });
});

describe('invalid traffic on our zones (server-side facts, counted apart, never an ad)', () => {
  let strict: TestEngine;
  beforeAll(async () => {
    // Its own engine (the limits are per process), with limits small enough to reach.
    strict = await startEngine(fx.redis.url, {
      ZONE_REQUESTS_PER_ADDRESS_PER_MIN: '12',
      ZONE_REQUESTS_PER_FINGERPRINT_PER_MIN: '4',
    });
    await eventually(() => strict.engine.mirror.index?.zones.get(subids.banner ?? '')?.serving === true);
    await new Promise((r) => setTimeout(r, 300));
  });
  afterAll(() => strict.stop());

  const ask = (z: string, fp: string, headers: Record<string, string> = {}) =>
    fetch(`${strict.base}/imp?z=${z}&fp=${fp}&s=e30`, { headers: { ...BROWSER, ...headers } }).then((r) => r.status);
  const noBids = async (reason: string) =>
    (await streamedEvents(fx.app.svc.redis, strict)).filter(
      (e) => e.type === 'nobid' && e.reason === reason && e.zone_id === zoneIds.banner,
    ).length;
  /** Runs `requests` within one minute window of the limiter (fixed windows), retrying once across a boundary. */
  async function inOneMinute<T>(requests: () => Promise<T>): Promise<T> {
    for (;;) {
      const minute = Math.floor(Date.now() / 60_000);
      const out = await requests();
      if (Math.floor(Date.now() / 60_000) === minute) return out;
    }
  }

  it("serves a page on the zone's site and refuses one elsewhere, by Origin, else Referer", async () => {
    expect(await ask(subids.banner ?? '', 'origin-1', { origin: `https://www.${siteDomain}` })).toBe(200);
    expect(await ask(subids.banner ?? '', 'origin-2', { origin: 'https://ticket-farm.test' })).toBe(204);
    expect(await ask(subids.banner ?? '', 'origin-3', { referer: `https://${siteDomain}.ticket-farm.test/page` })).toBe(
      204,
    );
    expect(await ask(subids.banner ?? '', 'origin-4', { referer: `https://news.${siteDomain}/2026/article` })).toBe(
      200,
    );
    expect(await noBids('foreign_origin')).toBe(2);
  });

  it('limits one browser fingerprint, then one address however it varies the fingerprint', async () => {
    const floods = async () => {
      const e = (await streamedEvents(fx.app.svc.redis, strict)).filter(
        (x) => x.type === 'nobid' && x.zone_id === zoneIds.native,
      );
      return {
        fingerprint: e.filter((x) => x.reason === 'fingerprint_flood').length,
        address: e.filter((x) => x.reason === 'address_flood').length,
      };
    };
    const { statuses, before, after } = await inOneMinute(async () => {
      const before = await floods();
      const statuses: number[] = [];
      for (let i = 0; i < 6; i++) statuses.push(await ask(subids.native ?? '', 'same-browser'));
      for (let i = 0; i < 14; i++) statuses.push(await ask(subids.native ?? '', `rotating-${i}`));
      return { statuses, before, after: await floods() };
    });
    // The native zone from this address: 4 per fingerprint, 12 per address in all (the refused ones count too).
    expect(statuses.slice(0, 6)).toEqual([200, 200, 200, 200, 204, 204]);
    expect(statuses.slice(6)).toEqual([...Array<number>(6).fill(200), ...Array<number>(8).fill(204)]);
    expect({ fingerprint: after.fingerprint - before.fingerprint, address: after.address - before.address }).toEqual({
      fingerprint: 2,
      address: 8,
    });
  });
});

describe('GET /vast/<subid>.xml', () => {
  it('is VAST 4.0 with media, click-through and impression tracking; empty VAST without an ad', async () => {
    const res = await fetch(`${engine.base}/vast/${subids.video}.xml`, { headers: BROWSER });
    expect(res.headers.get('content-type')).toContain('application/xml');
    const xml = await res.text();
    expect(xml).toContain('<VAST version="4.0" xmlns="http://www.iab.com/VAST">');
    expect(xml).toMatch(/<MediaFile [^>]*type="video\/mp4"[^>]*><!\[CDATA\[https:\/\/cdn\.example\.com\/v\.mp4\]\]>/);
    expect(xml).toMatch(/<ClickThrough id="click"><!\[CDATA\[.+\/c\/.+\]\]>/);
    const empty = await (await fetch(`${engine.base}/vast/${subids.banner}.xml`)).text();
    expect(empty).toBe('<?xml version="1.0" encoding="UTF-8"?><VAST version="4.0" xmlns="http://www.iab.com/VAST"/>');
    expect(await (await fetch(`${engine.base}/vast/unknown.xml`)).text()).toBe(empty);

    // Both documents validate against the IAB VAST 4.0 schema (tooling/vast-schema.ts; xmllint from libxml2-utils).
    expect(spawnSync('xmllint', ['--version']).status, 'install libxml2-utils for xmllint').toBe(0);
    for (const doc of [xml, empty]) expect(vastVerdict(doc)).toMatchObject({ valid: true });

    // The player's impression pixel counts (and charges) once; its viewable pixel counts once, and only after it.
    const pixel = /<Impression id="imp"><!\[CDATA\[(.+?)\]\]>/.exec(xml)?.[1] ?? '';
    const viewable = /<ViewableImpression id="viewable"><Viewable><!\[CDATA\[(.+?)\]\]>/.exec(xml)?.[1] ?? '';
    expect(viewable).toMatch(/\/t\/vast\/viewable\//);
    const bidId = /<Ad id="([^"]+)">/.exec(xml)?.[1];
    await fetch(viewable);
    expect((await events()).filter((e) => e.bid_id === bidId)).toEqual([]);
    await fetch(pixel);
    await fetch(pixel);
    for (let i = 0; i < 2; i++) await fetch(viewable);
    expect((await events()).filter((e) => e.type === 'viewable' && e.bid_id === bidId)).toHaveLength(1);
    const counted = (await events()).filter((e) => e.type === 'impression' && e.bid_id === bidId);
    expect(counted).toHaveLength(1);
    expect(counted[0]).toMatchObject({ zone_id: zoneIds.video, charge_nano: expect.any(Number), integration: 'vast' });
  });
});

describe('GET /c/<impression>/<token>', () => {
  it('redirects with a click id, keeps the click context, and charges a valid CPC click once', async () => {
    const served = await rendered(subids.native ?? '');
    const res = await click(served.body?.click_url ?? '');
    expect(res.status).toBe(302);
    const clickId = /c=([0-9a-f-]{36})$/.exec(res.headers.get('location') ?? '')?.[1] ?? '';
    expect(clickId).not.toBe('');
    const context = JSON.parse((await fx.app.svc.redis.get(`click:{${clickId}}`)) ?? '{}') as Record<string, unknown>;
    expect(context).toMatchObject({
      campaign_id: cpcCampaign,
      zone_id: zoneIds.native,
      publisher_id: pub.id,
      invalid: false,
      vertical: 'ecommerce',
    });

    const again = await click(served.body?.click_url ?? '');
    expect(again.status).toBe(302);
    const clicks = (await events()).filter((e) => e.type === 'click' && e.campaign_id === cpcCampaign);
    expect(clicks.map((e) => [e.invalid, e.reason ?? null, e.charge_nano])).toEqual([
      [false, null, 30_000 * 10_000],
      [true, 'duplicate', 0],
    ]);
  });

  it('marks fraud one rule at a time, and still sends the person to the landing page', async () => {
    const cases: [string, string, Record<string, string>][] = [
      ['too_fast', 'ttc=50&x=40&y=20&focus=1&fp=fingerprint-123', BROWSER],
      ['no_focus', 'ttc=1500&x=40&y=20&focus=0&fp=fingerprint-123', BROWSER],
      [
        'bot_user_agent',
        'ttc=1500&x=40&y=20&focus=1&fp=fingerprint-123',
        { 'user-agent': 'Mozilla/5.0 (compatible; Googlebot/2.1)' },
      ],
    ];
    for (const [reason, query, headers] of cases) {
      const served = await rendered(subids.banner ?? '');
      const res = await click(served.body?.click_url ?? '', query, headers);
      expect(res.status).toBe(302);
      const bid = (await events()).filter((e) => e.type === 'click').at(-1);
      expect([reason, bid?.invalid, bid?.reason]).toEqual([reason, true, reason]);
    }
  });

  it('an expired impression still lands but is not billed', async () => {
    const served = await rendered(subids.native ?? '');
    const url = served.body?.click_url ?? '';
    const ticket = url.split('/c/')[1]?.split('/')[0] ?? '';
    const old = decodeTicket('t'.repeat(40), ticket);
    expect(old).toBeDefined();
    const stale = encodeTicket('t'.repeat(40), {
      ...(old as BidTicket),
      issuedAt: (old as BidTicket).issuedAt - 2 * 86_400,
    });
    const res = await click(url.replace(ticket, stale));
    expect(res.status).toBe(302);
    const last = (await events()).filter((e) => e.type === 'click').at(-1);
    expect(last).toMatchObject({ invalid: true, reason: 'expired', charge_nano: 0 });
  });

  it('404 for a forged impression or a wrong tracking token', async () => {
    const served = await imp(subids.banner ?? '');
    const url = served.body?.click_url ?? '';
    const [prefix, token] = [url.slice(0, url.lastIndexOf('/')), url.slice(url.lastIndexOf('/') + 1)];
    expect((await click(`${prefix}/${'x'.repeat(24)}`)).status).toBe(404);
    const ticket = prefix.slice(prefix.lastIndexOf('/') + 1);
    const forged = `${engine.base}/c/${ticket.slice(0, -3)}abc/${token}`;
    expect((await click(forged)).status).toBe(404);
  });
});

describe('a widget click counts only after its ad rendered', () => {
  let other: TestEngine;
  beforeAll(async () => {
    // A second engine: the beacon and the click of one ad may reach different engines behind a balancer.
    other = await startEngine(fx.redis.url);
    await eventually(() => other.engine.mirror.index?.zones.get(subids.native ?? '')?.serving === true);
    await new Promise((r) => setTimeout(r, 300));
  });
  afterAll(() => other.stop());

  const onOther = (url: string) => url.replace(engine.base, other.base);
  const human = (fp: string) => `ttc=1500&x=40&y=20&focus=1&fp=${fp}`;
  /** The CPC campaign's spend today and its advertiser's balance, after both engines settled what they hold. */
  const money = async () => {
    await Promise.all([engine, other].map((e) => e.engine.budget.flush()));
    const spent = Number(
      (await fx.app.svc.redis.hget(campaignPoolKey(cpcCampaign, budgetDay(Date.now())), 'spent')) ?? 0,
    );
    return { spent, balance: Number(await fx.app.svc.redis.get(balanceKey(advertiser.id))) };
  };
  const clicksOf = async (bidIds: string[]) => {
    await other.engine.events.flush();
    // In the order they were clicked: two engines' batches reach the stream in the order they flush.
    return (await streamedEvents(fx.app.svc.redis, engine))
      .filter((e) => e.type === 'click' && bidIds.includes(e.bid_id ?? ''))
      .sort((a, b) => (a.ts ?? 0) - (b.ts ?? 0));
  };
  const bidIdOf = (served: { body?: ImpReply }) =>
    (decodeTicket('t'.repeat(40), served.body?.impression_id ?? '') as BidTicket).bidId;

  it('a click on an ad never rendered is not_rendered: it lands, charges nothing, and leaves the campaign and its advertiser as they were', async () => {
    const before = await money();
    // Two ads served, one rendered; each clicked, on both engines, as a person would click.
    const shown = await rendered(subids.native ?? '');
    const hidden = await imp(subids.native ?? '');
    for (const [i, url] of [shown.body?.click_url ?? '', hidden.body?.click_url ?? ''].entries()) {
      for (const [j, u] of [url, onOther(url)].entries())
        expect((await click(u, human(`never-rendered-${i}-${j}`))).status).toBe(302);
    }
    const seen = await clicksOf([bidIdOf(shown), bidIdOf(hidden)]);
    expect(seen.filter((e) => e.bid_id === bidIdOf(hidden)).map((e) => [e.invalid, e.reason, e.charge_nano])).toEqual([
      [true, 'not_rendered', 0],
      [true, 'not_rendered', 0],
    ]);
    expect(
      seen.filter((e) => e.bid_id === bidIdOf(shown)).map((e) => [e.invalid, e.reason ?? null, e.charge_nano]),
    ).toEqual([
      [false, null, 300_000_000],
      [true, 'duplicate', 0],
    ]);
    // One ad shown, one click charged: $0.30, not $0.60.
    const after = await money();
    expect({ spent: after.spent - before.spent, balance: before.balance - after.balance }).toEqual({
      spent: 300_000_000,
      balance: 30,
    });
  });

  it('a click before the render, then the render, then the click again: the second is the first valid click, billed once', async () => {
    const served = await imp(subids.native ?? '');
    const url = served.body?.click_url ?? '';
    const before = await money();
    const early = await click(url, human('early-clicker'));
    const clickId = /c=([0-9a-f-]{36})$/.exec(early.headers.get('location') ?? '')?.[1] ?? '';
    // The refused click still keeps its context for a conversion, as invalid.
    expect(JSON.parse((await fx.app.svc.redis.get(`click:{${clickId}}`)) ?? '{}')).toMatchObject({ invalid: true });
    // The beacon reaches the other engine; the clicks that follow come to either.
    expect((await fetch(onOther(served.body?.beacon_url ?? ''), { headers: BROWSER })).status).toBe(200);
    await click(onOther(url), human('early-clicker'));
    await click(url, human('early-clicker-again'));
    const seen = await clicksOf([bidIdOf(served)]);
    expect(seen.map((e) => [e.invalid, e.reason ?? null, e.charge_nano])).toEqual([
      [true, 'not_rendered', 0],
      [false, null, 300_000_000],
      [true, 'duplicate', 0],
    ]);
    expect(new Set(seen.map((e) => e.click_id))).toEqual(new Set([clickId]));
    expect(JSON.parse((await fx.app.svc.redis.get(`click:{${clickId}}`)) ?? '{}')).toMatchObject({ invalid: false });
    const after = await money();
    expect(after.spent - before.spent).toBe(300_000_000);
  });

  it('many parallel clicks on rendered and unrendered ads, on two engines: exactly one charge per rendered ad', async () => {
    const shown = await Promise.all(Array.from({ length: 10 }, () => rendered(subids.native ?? '')));
    const hidden = await Promise.all(Array.from({ length: 10 }, () => imp(subids.native ?? '')));
    const before = await money();
    // Eight clicks on each ad at once, half through each engine, each from its own fingerprint (under the flood limit).
    const all = [...shown, ...hidden].flatMap((served, i) =>
      Array.from({ length: 8 }, (_, j) => {
        const url = served.body?.click_url ?? '';
        return click(j % 2 ? onOther(url) : url, human(`parallel-${i}-${j}`));
      }),
    );
    expect((await Promise.all(all)).map((r) => r.status)).toEqual(Array<number>(160).fill(302));
    const seen = await clicksOf([...shown, ...hidden].map(bidIdOf));
    expect(seen).toHaveLength(160);
    const tally = (ads: typeof shown) => {
      const mine = seen.filter((e) => ads.map(bidIdOf).includes(e.bid_id ?? ''));
      return {
        valid: mine.filter((e) => !e.invalid).length,
        charged: mine.filter((e) => e.charge_nano === 300_000_000).length,
        duplicate: mine.filter((e) => e.reason === 'duplicate').length,
        notRendered: mine.filter((e) => e.reason === 'not_rendered').length,
        perAd: new Set(ads.map((a) => mine.filter((e) => e.bid_id === bidIdOf(a) && !e.invalid).length)),
      };
    };
    expect(tally(shown)).toEqual({ valid: 10, charged: 10, duplicate: 70, notRendered: 0, perAd: new Set([1]) });
    expect(tally(hidden)).toEqual({ valid: 0, charged: 0, duplicate: 0, notRendered: 80, perAd: new Set([0]) });
    const after = await money();
    expect({ spent: after.spent - before.spent, balance: before.balance - after.balance }).toEqual({
      spent: 10 * 300_000_000,
      balance: 300,
    });
  });
});

describe('GET /b/<ticket>: the render beacon is the impression', () => {
  const beaconOf = async () => {
    const served = await imp(subids.banner ?? '');
    const body = served.body as ImpReply & { beacon_url: string };
    return { url: body.beacon_url, bidId: (decodeTicket('t'.repeat(40), body.impression_id) as BidTicket).bidId };
  };
  const mine = async (bidId: string) => (await events()).filter((e) => e.bid_id === bidId);

  it('an ad requested and never rendered costs nothing; its beacon counts and charges once', async () => {
    const { url, bidId } = await beaconOf();
    expect(url).toMatch(/\/b\/[^/?]+$/);
    expect(await mine(bidId)).toEqual([]);
    for (let i = 0; i < 3; i++) expect((await fetch(url, { headers: BROWSER })).status).toBe(200);
    const counted = (await mine(bidId)).filter((e) => e.type === 'impression');
    expect(counted).toHaveLength(1);
    // The $2 CPM banner campaign, alone in its slot, pays the one-cent minimum: 1 000 micro-cents per thousand.
    expect(counted[0]).toMatchObject({ zone_id: zoneIds.banner, charge_nano: 10_000, price_micro_cents: 1_000 });
  });

  it('records a beacon from another browser or network, or too late, apart and charges nothing', async () => {
    const other = await beaconOf();
    await fetch(other.url, { headers: { ...BROWSER, 'user-agent': 'Mozilla/5.0 (Windows NT 10.0) Firefox/126.0' } });
    expect((await mine(other.bidId)).map((e) => [e.type, e.reason])).toEqual([['uncounted', 'mismatch']]);
    const late = await beaconOf();
    const token = late.url.split('/').pop() ?? '';
    const ticket = decodeTicket('t'.repeat(40), token) as BidTicket;
    const old = encodeTicket('t'.repeat(40), { ...ticket, issuedAt: ticket.issuedAt - 11 * 60 });
    await fetch(`${engine.base}/b/${old}`, { headers: BROWSER });
    expect((await mine(late.bidId)).map((e) => [e.type, e.reason])).toEqual([['uncounted', 'expired']]);
    // A ticket of another surface (a VAST ad) is no beacon.
    expect(
      (
        await fetch(`${engine.base}/b/${encodeTicket('t'.repeat(40), { ...ticket, surface: 'vast' })}`, {
          headers: BROWSER,
        })
      ).status,
    ).toBe(404);
  });

  it('reports a viewable impression once, and only of a rendered ad', async () => {
    const { url, bidId } = await beaconOf();
    await fetch(`${url}?e=viewable`, { headers: BROWSER });
    expect(await mine(bidId)).toEqual([]);
    await fetch(url, { headers: BROWSER });
    for (let i = 0; i < 2; i++) await fetch(`${url}?e=viewable`, { headers: BROWSER });
    expect((await mine(bidId)).map((e) => e.type).sort()).toEqual(['impression', 'viewable']);
  });
});

describe('where the visitor is and what it uses', () => {
  const IPHONE =
    'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1';
  const IPAD =
    'Mozilla/5.0 (iPad; CPU OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1';
  const NL = '193.0.0.1'; // RIPE NCC's own network
  let dutch = 0;
  let phones = 0;
  let untrusting: TestEngine;

  beforeAll(async () => {
    const adv = await world.advertiser(100_000);
    // Each outbids the untargeted CPC native campaign ($1.20 eCPM) wherever its targeting matches.
    dutch = (await world.campaign(adv, { format: 'native', geo_include: ['nl'], bid_usd: 5 })).campaign.id;
    const targeting = {
      device_types: ['mobile'],
      os_include: ['ios', 'android'],
      browser_include: ['safari', 'chrome'],
    };
    phones = (await world.campaign(adv, { format: 'native', bid_usd: 4, ...targeting })).campaign.id;
    // An engine that trusts no proxy: what a visitor reaching it directly gets.
    untrusting = await startEngine(fx.redis.url, { TRUSTED_PROXIES: '' });
    for (const e of [engine, untrusting])
      await eventually(
        () =>
          (e.engine.mirror.index?.candidateCount ?? 0) >= 5 &&
          e.engine.mirror.index?.zones.get(subids.native ?? '')?.serving === true,
      );
    await new Promise((r) => setTimeout(r, 300));
  });
  afterAll(() => untrusting.stop());

  /** The ticket of the native ad `on` serves to a browser sending `headers` (on top of the desktop Linux Chrome). */
  const served = async (on: TestEngine, headers: Record<string, string>) => {
    const res = await fetch(`${on.base}/imp?z=${subids.native}&fp=where-${Math.random()}&s=e30`, {
      headers: { ...BROWSER, ...headers },
    });
    const body = (await res.json()) as ImpReply & { beacon_url: string };
    return {
      ...(decodeTicket('t'.repeat(40), body.impression_id) as BidTicket),
      beacon: body.beacon_url,
      click: body.click_url,
    };
  };

  it('takes the country from the client address a trusted proxy forwards', async () => {
    const t = await served(engine, { 'x-forwarded-for': NL });
    expect([t.campaignId, t.country]).toEqual([dutch, 'nl']);
    // Loopback itself is in no country: only untargeted campaigns serve it.
    expect((await served(engine, {})).campaignId).toBe(cpcCampaign);
  });

  it("believes a country header only from a trusted proxy, never the visitor's own", async () => {
    expect((await served(engine, { 'cf-ipcountry': 'NL' })).campaignId).toBe(dutch);
    for (const headers of [{ 'x-country': 'NL' }, { 'cf-ipcountry': 'NL' }, { 'x-forwarded-for': NL }] as Record<
      string,
      string
    >[]) {
      const t = await served(untrusting, headers);
      expect([t.campaignId, t.country], JSON.stringify(headers)).toEqual([cpcCampaign, '']);
    }
  });

  it('reads device type, OS and browser from the user agent and its Client Hints', async () => {
    const iphone = await served(engine, { 'user-agent': IPHONE });
    expect([iphone.campaignId, iphone.device, iphone.os, iphone.browser]).toEqual([phones, 'mobile', 'ios', 'safari']);
    // A tablet and a desktop are not the phones the campaign targets.
    expect((await served(engine, { 'user-agent': IPAD })).campaignId).toBe(cpcCampaign);
    const desktop = await served(engine, {});
    expect([desktop.campaignId, desktop.device, desktop.os, desktop.browser]).toEqual([
      cpcCampaign,
      'desktop',
      'linux',
      'chrome',
    ]);
    // The same Chrome, its hints saying it runs on an Android phone.
    const hinted = await served(engine, { 'sec-ch-ua-platform': '"Android"', 'sec-ch-ua-mobile': '?1' });
    expect([hinted.campaignId, hinted.device, hinted.os]).toEqual([phones, 'mobile', 'android']);
  });

  it("carries the viewer's OS and browser into the impression, the click and the click record", async () => {
    const t = await served(engine, { 'user-agent': IPHONE });
    await fetch(t.beacon, { headers: { ...BROWSER, 'user-agent': IPHONE } });
    const res = await click(t.click, 'ttc=1200&x=40&y=20&focus=1&fp=fingerprint-123', {
      ...BROWSER,
      'user-agent': IPHONE,
    });
    const clickId = /c=([0-9a-f-]{36})$/.exec(res.headers.get('location') ?? '')?.[1] ?? '';
    const mine = (await events()).filter((e) => e.bid_id === t.bidId);
    expect(mine.map((e) => [e.type, e.device, e.os, e.browser]).sort()).toEqual([
      ['click', 'mobile', 'ios', 'safari'],
      ['impression', 'mobile', 'ios', 'safari'],
    ]);
    expect(JSON.parse((await fx.app.svc.redis.get(`click:{${clickId}}`)) ?? '{}')).toMatchObject({
      device: 'mobile',
      os: 'ios',
      browser: 'safari',
    });
  });
});
