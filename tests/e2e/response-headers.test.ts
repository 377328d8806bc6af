import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp } from '@adnet/test-support/admin';
import type { TestApp } from '@adnet/test-support/admin';
import { eventually, startEngine } from '@adnet/test-support/engine';
import type { TestEngine } from '@adnet/test-support/engine';
import { freePort, startRedis } from '@adnet/test-support/redis';
import type { TestRedis } from '@adnet/test-support/redis';
import { World, bannerRequest } from '@adnet/test-support/world';

// Every answer that is not the cabinet's page says its type is not to be sniffed and, opened as a
// document, may load nothing and runs sandboxed; the cabinet's page keeps its own strict policy. Ad and
// tracking links use the separate ad origin when one is configured.

const SANDBOX = "default-src 'none'; sandbox";
let redis: TestRedis;
let app: TestApp;
let engine: TestEngine;
let cabinetDir: string;
/** The public base URL (the engine) and the ad origin: another host name for the same engines. */
let base = '';
let adBase = '';
const subids: Record<string, string> = {};
const zoneLinks: Record<string, string | undefined>[] = [];
const BROWSER = {
  'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/125.0 Safari/537.36',
};

beforeAll(async () => {
  cabinetDir = mkdtempSync(join(tmpdir(), 'cabinet-'));
  mkdirSync(join(cabinetDir, 'assets'));
  writeFileSync(
    join(cabinetDir, 'index.html'),
    '<!doctype html><title>Cabinet</title><script type="module" src="/cabinet/assets/app.js"></script>',
  );
  writeFileSync(join(cabinetDir, 'assets', 'app.js'), 'console.log(1)');
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  adBase = `http://localhost:${port}`;
  redis = await startRedis();
  const env = { PUBLIC_BASE_URL: base, PUBLIC_AD_BASE_URL: adBase };
  app = await startApp(redis.url, env, { cabinetDir });
  engine = await startEngine(redis.url, { ...env, PORT: String(port) }, { adminUpstream: app.base });
  const world = await World.create(app);
  await world.partner();
  const adv = await world.advertiser(1_000_000);
  for (const format of ['banner', 'native', 'video']) await world.campaign(adv, { format, bid_usd: 2 });
  const site = await world.site();
  for (const [name, fields] of Object.entries({ native: { format: 'native' }, video: { format: 'video' } })) {
    const zone = (await world.zone(fields, site)) as { subid: string; widget_url?: string; vast_url?: string };
    subids[name] = zone.subid;
    zoneLinks.push({ widget_url: zone.widget_url, vast_url: zone.vast_url });
  }
  await eventually(
    () =>
      engine.engine.mirror.index?.candidateCount === 3 &&
      engine.engine.mirror.index.zones.get(subids.video ?? '')?.serving === true,
  );
  await new Promise((r) => setTimeout(r, 300));
}, 60_000);
afterAll(async () => {
  await engine?.stop();
  await app?.close();
  await redis?.stop();
  rmSync(cabinetDir, { recursive: true, force: true });
});

/** A link the engine wrote on the ad origin, fetched on the loopback address it routes to. */
const onEngine = (link: string) => link.replace(adBase, base);

async function answers(): Promise<[string, Response][]> {
  const out: [string, Response][] = [];
  const get = async (label: string, url: string, init: RequestInit = {}) => {
    const res = await fetch(url, {
      redirect: 'manual',
      ...init,
      headers: { ...BROWSER, ...(init.headers as Record<string, string>) },
    });
    await res.arrayBuffer();
    out.push([label, res]);
    return res;
  };
  const bid = (imp: Record<string, unknown>) =>
    fetch(`${base}/openrtb/bid`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-openrtb-version': '2.5' },
      body: JSON.stringify(bannerRequest({}, imp)),
    });
  const won = await bid({ banner: { w: 300, h: 250 } });
  out.push(['bid 200', won]);
  const nurl = ((await won.json()) as { seatbid: { bid: { nurl: string }[] }[] }).seatbid[0]?.bid[0]?.nurl ?? '';
  const none = await bid({ banner: { w: 1, h: 1 } });
  out.push(['bid 204', none]);
  await get('bid 400', `${base}/openrtb/bid`, { method: 'POST', headers: { 'x-openrtb-version': '2.5' }, body: '{' });
  await get('win notice', onEngine(nurl.replace('${AUCTION_PRICE}', '1.5')));
  await get(
    'billing notice',
    onEngine(nurl.replace('/openrtb/win/', '/openrtb/bill/').replace('${AUCTION_PRICE}', '1.5')),
  );
  const script = await get('widget script', `${base}/w/${subids.native}.js`);
  await get('widget script 304', `${base}/w/${subids.native}.js`, {
    headers: { 'if-none-match': script.headers.get('etag') ?? '' },
  });
  const imp = await fetch(`${base}/imp?z=${subids.native}&fp=f&s=e30`, { headers: BROWSER });
  out.push(['imp 200', imp]);
  const ad = (await imp.json()) as { click_url: string; beacon_url: string; creative: { image_url: string } };
  await get('imp 204', `${base}/imp?z=nope`);
  await get('beacon', onEngine(ad.beacon_url));
  await get('click redirect', onEngine(ad.click_url));
  await get('click 404', `${base}/c/nope`);
  await get('media 200', onEngine(ad.creative.image_url));
  const vast = await fetch(`${base}/vast/${subids.video}.xml`, { headers: BROWSER });
  out.push(['vast', vast]);
  const xml = await vast.text();
  await get('vast empty', `${base}/vast/nope.xml`);
  await get('vast pixel', onEngine(/<Impression id="imp"><!\[CDATA\[(.+?)\]\]>/.exec(xml)?.[1] ?? ''));
  await get('vast tracking', onEngine(/<Tracking event="start"><!\[CDATA\[(.+?)\]\]>/.exec(xml)?.[1] ?? ''));
  await get('vast tracking 404', `${base}/t/vast/start/nope`);
  await get('hb preflight', `${base}/hb/bid`, { method: 'OPTIONS' });
  await get('hb 204', `${base}/hb/bid`, { method: 'POST', body: '{"id":"x","imp":[{"id":"1","tagid":"nope"}]}' });
  await get('hb 400', `${base}/hb/bid`, { method: 'POST', body: '{' });
  await get('push key', `${base}/push/vapid-public-key`);
  await get('push preflight', `${base}/push/subscribe`, { method: 'OPTIONS' });
  await get('push 400', `${base}/push/subscribe`, { method: 'POST', body: '{}' });
  await get('push unsubscribe 400', `${base}/push/unsubscribe`, { method: 'POST', body: '{}' });
  await get('push worker', `${base}/push/sw.js`);
  await get('engine probe', `${base}/engine/healthz`);
  // The admin through the engine's proxy, and the proxy's own refusal.
  await get('api 401', `${base}/api/adv/campaigns`);
  await get('api 400', `${base}/api/auth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{}',
  });
  await get('trpc', `${base}/trpc/adv.campaigns.list`);
  await get('openapi', `${base}/openapi.json`);
  await get('docs', `${base}/docs/vast`);
  await get('sellers.json', `${base}/sellers.json`);
  await get('media 404', `${base}/media/nope.png`);
  await get('cabinet asset', `${base}/cabinet/assets/app.js`);
  await get('admin 404', `${base}/nowhere`);
  await get('postback', `${base}/postback/in`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: 'click_id=00000000-0000-4000-8000-000000000000&payout=100&status=approved&txid=t&secret=x&sig=00',
  });
  await get('postback 400', `${base}/postback/in?click_id=x`);
  await get('proxy 413', `${base}/api/auth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: 'x'.repeat(2 * 1024 * 1024),
  });
  // And the admin on its own address, as a balancer that routes /api to it would reach it.
  await get('admin direct', `${app.base}/api/adv/campaigns`);
  await get('admin direct trpc', `${app.base}/trpc/adv.campaigns.list`);
  return out;
}

describe('response headers', () => {
  it('every answer that is not the cabinet page: nosniff and a policy that loads nothing and sandboxes', async () => {
    const all = await answers();
    const statuses = Object.fromEntries(all.map(([label, res]) => [label, res.status]));
    // The list covers what it says: pixels, redirects, scripts, XML, JSON, errors of both services.
    expect(statuses).toMatchObject({
      'bid 200': 200,
      'bid 204': 204,
      'click redirect': 302,
      'click 404': 404,
      'media 200': 200,
      'widget script 304': 304,
      'proxy 413': 413,
      'api 401': 401,
    });
    expect(all.find(([l]) => l === 'beacon')?.[1].headers.get('content-type')).toBe('image/gif');
    const wrong = all
      .filter(
        ([, res]) =>
          res.headers.get('x-content-type-options') !== 'nosniff' ||
          res.headers.get('content-security-policy') !== SANDBOX,
      )
      .map(
        ([label, res]) =>
          `${label} ${res.status}: ${res.headers.get('x-content-type-options')} / ${res.headers.get('content-security-policy')}`,
      );
    expect(wrong).toEqual([]);
  });

  it("the cabinet's page keeps its strict policy, through the engine and on the admin's own address", async () => {
    for (const url of [`${base}/cabinet/campaigns`, `${app.base}/cabinet`]) {
      const res = await fetch(url);
      expect(res.status).toBe(200);
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      const csp = res.headers.get('content-security-policy') ?? '';
      expect(csp).toContain("script-src 'self'");
      expect(csp).toContain("frame-ancestors 'none'");
      expect(csp).not.toContain('sandbox');
    }
  });
});

describe('the separate ad origin (PUBLIC_AD_BASE_URL)', () => {
  it('zone, widget, /imp, VAST and bid links all point at it; API documents stay on the public base URL', async () => {
    expect(zoneLinks).toEqual([
      { widget_url: `${adBase}/w/${subids.native}.js`, vast_url: undefined },
      { widget_url: `${adBase}/w/${subids.video}.js`, vast_url: `${adBase}/vast/${subids.video}.xml` },
    ]);
    const script = await (await fetch(`${base}/w/${subids.native}.js`)).text();
    expect(script).toContain(JSON.stringify(adBase).slice(1, -1));
    const ad = (await (
      await fetch(`${base}/imp?z=${subids.native}&fp=f&s=e30`, { headers: BROWSER })
    ).json()) as Record<string, string> & {
      creative: { image_url: string };
    };
    expect(ad.creative.image_url.startsWith(`${adBase}/media/`)).toBe(true);
    expect(ad.click_url?.startsWith(`${adBase}/c/`)).toBe(true);
    expect(ad.beacon_url?.startsWith(`${adBase}/b/`)).toBe(true);
    const xml = await (await fetch(`${base}/vast/${subids.video}.xml`, { headers: BROWSER })).text();
    expect(xml).toContain(`<![CDATA[${adBase}/openrtb/imptracker/`);
    const openApi = (await (await fetch(`${base}/openapi.json`)).json()) as { servers: { url: string }[] };
    expect(openApi.servers[0]?.url).toBe(base);
  });
});
