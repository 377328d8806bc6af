import type { Creative } from '@adnet/schemas/api';
import { connect } from 'node:net';
import type { Browser } from 'playwright-core';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, useTestApp } from '@adnet/test-support/admin';
import { launchChromium } from '@adnet/test-support/browser';
import { eventually, postBid, startEngine, streamedEvents } from '@adnet/test-support/engine';
import type { TestEngine } from '@adnet/test-support/engine';
import {
  HOSTILE_TEXT,
  HOSTILE_URLS,
  activeHtml,
  scriptElements,
  vastVerdict,
  xmlText,
} from '@adnet/test-support/hostile';
import { World, bannerRequest } from '@adnet/test-support/world';

// What a creative stored before the API's checks (or written around them) can carry, planted straight
// into the config store, must come out of every output inert: VAST, OpenRTB markup, /imp, the widget's
// DOM, the click redirect.

const fx = useTestApp();
let engine: TestEngine;
let world: World;
let siteDomain = '';
const ids: Record<'banner' | 'native' | 'video', number> = { banner: 0, native: 0, video: 0 };
const subids: Record<string, string> = {};
const BROWSER = {
  'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/125.0 Safari/537.36',
};

beforeAll(async () => {
  world = await World.create(fx.app);
  await world.partner();
  const adv = await world.advertiser(10_000_000);
  for (const format of ['banner', 'native', 'video'] as const) {
    ids[format] = (await world.campaign(adv, { format, bid_usd: 2, daily_budget_usd: 100_000 })).creativeId;
  }
  const site = await world.site();
  siteDomain = site.domain;
  for (const [name, fields] of Object.entries({ native: { format: 'native' }, video: { format: 'video' } })) {
    subids[name] = (await world.zone(fields, site)).subid;
  }
  engine = await startEngine(fx.redis.url);
  await eventually(
    () =>
      engine.engine.mirror.index?.candidateCount === 3 &&
      engine.engine.mirror.index.zones.get(subids.video ?? '')?.serving === true,
  );
  await new Promise((r) => setTimeout(r, 300)); // first budget slices
});
afterAll(async () => {
  await engine?.stop();
});

/** Writes fields into a stored creative, past every API check, and waits until the engine has them as stored. */
async function plant(id: number, fields: Partial<Creative>): Promise<void> {
  const store = fx.app.svc.configStore;
  await store.update<Creative>(
    'creative',
    id,
    (c) => ({ value: { ...c, ...fields } }),
    () => new Error('no creative'),
  );
  // As stored: a lone surrogate comes back from UTF-8 as U+FFFD.
  const stored = (await store.read<Creative>('creative', id))?.value;
  await eventually(() => {
    const c = engine.engine.mirror.index?.creatives.get(id);
    return (
      c !== undefined &&
      stored !== undefined &&
      Object.keys(fields).every((k) => c[k as keyof Creative] === stored[k as keyof Creative])
    );
  });
}

const bid = async (imp: Record<string, unknown>) => {
  const r = await postBid(engine.base, bannerRequest({}, imp));
  const b = (r.body as { seatbid?: { bid: { adm: string }[] }[] }).seatbid?.[0]?.bid[0];
  return { status: r.status, adm: b?.adm ?? '' };
};
const BANNER_IMP = { banner: { w: 300, h: 250 } };
const NATIVE_IMP = { banner: undefined, native: { request: '{}', ver: '1.2' } };
const VIDEO_IMP = { banner: undefined, video: { mimes: ['video/mp4'] } };

describe('hostile creative text through every output', () => {
  it('VAST (/vast and OpenRTB video) stays valid against the IAB schema with no smuggled element', async () => {
    for (const text of HOSTILE_TEXT) {
      await plant(ids.video, { title: text });
      const zone = await (await fetch(`${engine.base}/vast/${subids.video}.xml`, { headers: BROWSER })).text();
      const openrtb = (await bid(VIDEO_IMP)).adm;
      for (const xml of [zone, openrtb]) {
        const verdict = vastVerdict(xml);
        expect(verdict.valid, `${JSON.stringify(text.slice(0, 60))}: ${verdict.output}`).toBe(true);
        expect(scriptElements(xml)).toBe(0);
        expect(xmlText(xml, 'MediaFile')).toBe('https://cdn.example.com/v.mp4');
      }
    }
  });

  it('banner HTML runs nothing; native JSON and /imp JSON give the text back as text', async () => {
    for (const text of HOSTILE_TEXT) {
      await Promise.all([
        plant(ids.banner, { title: text }),
        plant(ids.native, { title: text, body: text, cta_text: text }),
      ]);
      const banner = await bid(BANNER_IMP);
      expect(banner.status).toBe(200);
      expect(activeHtml(banner.adm)).toEqual([]);
      const stored = engine.engine.mirror.index?.creatives.get(ids.native)?.title;
      const native = await bid(NATIVE_IMP);
      expect(native.adm).not.toMatch(/[<>&\u2028\u2029]/);
      expect(
        (JSON.parse(native.adm) as { native: { assets: { title?: { text: string } }[] } }).native.assets[0]?.title
          ?.text,
      ).toBe(stored);
      const imp = await fetch(`${engine.base}/imp?z=${subids.native}&fp=f&s=e30`, { headers: BROWSER });
      expect(imp.headers.get('content-type')).toContain('application/json');
      expect(((await imp.json()) as { creative: { title: string } }).creative.title).toBe(stored);
    }
  });

  it("the widget's DOM shows the text as text: no element or handler of the creative's runs", async () => {
    let browser: Browser | undefined;
    let host: Server | undefined;
    try {
      host = createServer((_req, res) => {
        res.setHeader('content-type', 'text/html');
        res.end(
          `<!doctype html><html><body><script src="${engine.base}/w/${subids.native}.js"></script></body></html>`,
        );
      });
      await new Promise<void>((r) => host?.listen(0, '127.0.0.1', r));
      const page = await (
        await (browser = await launchChromium()).newContext({ userAgent: BROWSER['user-agent'] })
      ).newPage();
      const title = '<img src=x onerror="window.pwned=1">';
      const body = '"><svg onload="window.pwned=2"></svg>';
      const cta = ']]><script>window.pwned=3</script>\u2028';
      await plant(ids.native, { title, body, cta_text: cta });
      // On the zone's site, as the engine checks (launchChromium resolves it here).
      await page.goto(`http://${siteDomain}:${(host.address() as AddressInfo).port}/`);
      const card = page.locator('[data-adnet-zone] .native');
      await card.waitFor({ state: 'visible', timeout: 10_000 });
      expect(await card.locator('b').textContent()).toBe(title);
      expect(await card.locator('span').first().textContent()).toBe(body);
      expect(await card.locator('img[onerror], svg, script').count()).toBe(0);
      await page.waitForTimeout(300);
      expect(await page.evaluate(() => (globalThis as { pwned?: number }).pwned)).toBeUndefined();
    } finally {
      await browser?.close();
      host?.close();
    }
  });
});

/** One request on a raw socket: the status line and every header line exactly as the engine wrote them. */
function rawGet(base: string, path: string): Promise<{ status: string; headers: string[] }> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    const chunks: Buffer[] = [];
    socket.on('data', (c) => chunks.push(c));
    socket.on('error', reject);
    socket.on('end', () => {
      const head = Buffer.concat(chunks).toString('latin1').split('\r\n\r\n')[0] ?? '';
      const [status = '', ...headers] = head.split('\r\n');
      resolve({ status, headers });
    });
    socket.write(
      `GET ${path} HTTP/1.1\r\nHost: ${hostname}\r\nUser-Agent: ${BROWSER['user-agent']}\r\nConnection: close\r\n\r\n`,
    );
  });
}

describe('hostile URLs', () => {
  it('/c answers with exactly one Location and nothing injected, even for a landing URL stored with CR/LF', async () => {
    await plant(ids.native, { title: 'Fine', body: null, cta_text: null });
    const served = (await (
      await fetch(`${engine.base}/imp?z=${subids.native}&fp=f&s=e30`, { headers: BROWSER })
    ).json()) as { click_url: string };
    const path = new URL(served.click_url).pathname;
    const good = await rawGet(engine.base, path);
    expect(good.status).toBe('HTTP/1.1 302 Found');
    expect(good.headers.filter((h) => /^location:/i.test(h))).toHaveLength(1);
    expect(good.headers.some((h) => /^set-cookie:/i.test(h))).toBe(false);

    await plant(ids.native, {
      landing_url: 'https://shop.example.com/?c={click_id}\r\nSet-Cookie: pwned=1\r\n\r\n<script>alert(1)</script>',
    });
    const split = await rawGet(engine.base, path);
    expect(split.status).toBe('HTTP/1.1 404 Not Found');
    expect(split.headers.some((h) => /^(location|set-cookie):/i.test(h))).toBe(false);
    await plant(ids.native, { landing_url: 'https://shop.example.com/p?c={click_id}' });
  });

  it('a creative whose stored URL is not plain http(s) is not served: /vast is empty and valid, no bid carries it', async () => {
    for (const bad of HOSTILE_URLS) {
      await plant(ids.video, { video_url: bad, title: 'Ad' });
      await eventually(() => engine.engine.mirror.index?.candidateCount === 2);
      const zone = await (await fetch(`${engine.base}/vast/${subids.video}.xml`, { headers: BROWSER })).text();
      expect(vastVerdict(zone).valid).toBe(true);
      expect(zone).not.toContain('<Ad ');
      expect((await bid(VIDEO_IMP)).status).toBe(204);
    }
    await plant(ids.video, { video_url: 'https://cdn.example.com/v.mp4' });
    await eventually(() => engine.engine.mirror.index?.candidateCount === 3);
  });

  it('the API refuses them in the first place, naming the field', async () => {
    const adv = await world.advertiser(0);
    const c = await call<{ id: number }>(fx.app, 'POST', '/api/adv/campaigns', {
      token: adv.token,
      json: { name: 'x', vertical: 'other', format: 'video', bid_type: 'cpm', bid_usd: 1, daily_budget_usd: 10 },
    });
    for (const bad of HOSTILE_URLS.filter((u) => !u.startsWith('https://shop.example.com/"'))) {
      const form = new FormData();
      form.set('landing_url', 'https://shop.example.com/');
      form.set('video_url', bad);
      const r = await call<{ errors: Record<string, string> }>(
        fx.app,
        'POST',
        `/api/adv/campaigns/${c.body.id}/creatives`,
        { token: adv.token, form },
      );
      expect(r.status, bad).toBe(400);
      expect(Object.keys(r.body.errors)).toEqual(['video_url']);
    }
  });
});

describe('countries from partners', () => {
  it('a device.geo.country that names no country is an unknown one: the request still gets its auction, no event keeps the text', async () => {
    await plant(ids.banner, { title: 'Fine' });
    const auctions: string[] = [];
    // An alpha-2 code names a country too (partners send them, though OpenRTB 2.5 asks alpha-3).
    const sent: [string, string | undefined][] = [
      ['=cmd|calc!A0', undefined],
      ['+SUM(1+1)', undefined],
      ['-1', undefined],
      ['@x', undefined],
      ['US', 'us'],
      ['<script>', undefined],
      ['ZZZ', undefined],
    ];
    for (const [country] of sent) {
      const request = bannerRequest({}, BANNER_IMP);
      (request.device as { geo: { country: string } }).geo.country = country;
      auctions.push(request.id as string);
      expect((await postBid(engine.base, request)).status, country).toBe(200);
    }
    const bids = (await streamedEvents(fx.app.svc.redis, engine)).filter(
      (e) => e.type === 'bid' && auctions.includes(e.auction_id ?? ''),
    );
    expect(bids).toHaveLength(auctions.length);
    expect(bids.map((e) => e.country)).toEqual(sent.map(([, known]) => known));
  });
});
