import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, BrowserContext, Request } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildPrebidBundle } from '@adnet/prebid-adapter/build';
import { launchChromium } from '@adnet/test-support/browser';
import { eventually, streamedEvents } from '@adnet/test-support/engine';
import { useTestApp } from '@adnet/test-support/admin';
import { headerBidWorld } from './header-bid-world.ts';
import type { HeaderBidWorld } from './header-bid-world.ts';

// A publisher's page with Prebid.js built with our adapter (prebid/), and zones of ours as its ad units: Prebid runs
// the auction against POST /hb/bid, our bid wins, Prebid renders it, our render beacon counts the impression and a
// click counts the click, each once, the campaign charged once.

const fx = useTestApp();
let w: HeaderBidWorld;
let browser: Browser;
let context: BrowserContext;
let hostPage: Server;
let hostBase = '';
let bundle = '';
const CHROME_UA = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/125.0 Safari/537.36';

/** The publisher's page: three ad units bid on by our adapter; the banner's winner rendered into its frame by Prebid. */
const page = () => `<!doctype html><html><head><script async src="/prebid.js"></script></head><body>
<h1>Article</h1><iframe id="ad-banner" width="300" height="250" frameborder="0" scrolling="no"></iframe>
<script>
window.pbjs = window.pbjs || { que: [] };
pbjs.bidderSettings = { adnet: { storageAllowed: true } };
pbjs.que.push(function () {
  pbjs.setConfig({ adnet: { endpoint: ${JSON.stringify(w.engine.base)} } });
  pbjs.addAdUnits([
    { code: 'ad-banner', mediaTypes: { banner: { sizes: [[300, 250]] } }, bids: [{ bidder: 'adnet', params: { zone: '${w.zones.banner.subid}' } }] },
    { code: 'ad-native', mediaTypes: { native: { ortb: { assets: [
      { id: 1, required: 1, title: { len: 80 } },
      { id: 2, required: 0, img: { type: 3, w: 300, h: 250 } }
    ] } } }, bids: [{ bidder: 'adnet', params: { zone: '${w.zones.native.subid}' } }] },
    { code: 'ad-video', mediaTypes: { video: { context: 'outstream', playerSize: [640, 360], mimes: ['video/mp4'], protocols: [2, 3, 7] } },
      renderer: { url: '${hostBase}/renderer.js', render: function (bid) { window.renderedVast = bid.vastXml; } },
      bids: [{ bidder: 'adnet', params: { zone: '${w.zones.video.subid}' } }] }
  ]);
  pbjs.requestBids({ timeout: 5000, bidsBackHandler: function () {
    var all = pbjs.getBidResponses(), bids = {};
    for (var unit in all) bids[unit] = all[unit].bids.map(function (b) {
      return { bidderCode: b.bidderCode, mediaType: b.mediaType, cpm: b.cpm, currency: b.currency };
    });
    window.bids = bids;
    var winner = pbjs.getHighestCpmBids('ad-banner')[0];
    if (winner) pbjs.renderAd(document.getElementById('ad-banner').contentWindow.document, winner.adId);
    window.auctionDone = true;
  } });
});
</script></body></html>`;

beforeAll(async () => {
  bundle = await buildPrebidBundle();
  hostPage = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    if (url.pathname === '/prebid.js' || url.pathname === '/renderer.js') {
      res.setHeader('content-type', 'text/javascript');
      return void res.end(url.pathname === '/prebid.js' ? bundle : '');
    }
    res.setHeader('content-type', 'text/html');
    if (url.pathname === '/landing') return void res.end('<h1>Landing</h1>');
    res.end(page());
  });
  await new Promise<void>((r) => hostPage.listen(0, '127.0.0.1', r));
  const port = (hostPage.address() as AddressInfo).port;
  w = await headerBidWorld(fx.app, fx.redis.url, (domain) => `http://www.${domain}:${port}/landing?c={click_id}`);
  // The page is on the zone's site, as far as the browser knows (launchChromium resolves it here).
  hostBase = `http://www.${w.domain}:${port}`;
  browser = await launchChromium();
  context = await browser.newContext({ userAgent: CHROME_UA });
}, 60_000);
afterAll(async () => {
  await browser?.close();
  hostPage?.close();
  await w?.engine.stop();
});

const events = () => streamedEvents(fx.app.svc.redis, w.engine);
const hbWins = async () =>
  Number(/^adnet_engine_hb_wins_total(?:\{[^}]*\})? (\d+)/m.exec(await w.engine.engine.metrics.text())?.[1] ?? 0);

describe('Prebid.js with our adapter in a real browser', () => {
  it('runs an auction our bids win; Prebid renders ours; the beacon counts the impression and a click the click, once each', async () => {
    const tab = await context.newPage();
    const errors: string[] = [];
    tab.on('pageerror', (e) => errors.push(e.message));
    const sent: Request[] = [];
    tab.on('request', (r) => {
      if (r.url() === `${w.engine.base}/hb/bid`) sent.push(r);
    });
    await tab.goto(`${hostBase}/`);
    await tab.waitForFunction(() => (globalThis as unknown as { auctionDone?: boolean }).auctionDone === true, null, {
      timeout: 15_000,
    });

    // One request for the three ad units: each imp names its zone, as a simple request (no preflight).
    expect(sent).toHaveLength(1);
    expect(sent[0]?.headers()['content-type']).toMatch(/^text\/plain/);
    const body = JSON.parse(sent[0]?.postData() ?? '{}') as {
      imp: { tagid: string; banner?: unknown; native?: unknown; video?: unknown }[];
      ext?: { adnet?: { u?: string } };
    };
    expect(body.imp.map((i) => i.tagid).sort()).toEqual(
      [w.zones.banner.subid, w.zones.native.subid, w.zones.video.subid].sort(),
    );
    expect(body.ext?.adnet?.u).toMatch(/^[A-Za-z0-9_-]{22}$/);

    // Prebid read each answer as a bid of its media type.
    type Bids = Record<string, { bidderCode: string; mediaType: string; cpm: number; currency: string }[]>;
    const bids = await tab.evaluate(() => (globalThis as unknown as { bids: Bids }).bids);
    const kinds = Object.fromEntries(Object.entries(bids).map(([unit, b]) => [unit, b[0]?.mediaType]));
    expect(kinds).toEqual({ 'ad-banner': 'banner', 'ad-native': 'native', 'ad-video': 'video' });
    expect(bids['ad-banner']?.[0]).toMatchObject({ bidderCode: 'adnet', currency: 'USD' });
    expect(bids['ad-banner']?.[0]?.cpm).toBeGreaterThan(0);

    // Rendered by Prebid: our image in the ad's frame; its render beacon counted the impression, charged once.
    // Prebid writes our markup into a frame of its own (srcdoc) inside the ad unit's.
    const img = tab.frameLocator('#ad-banner').frameLocator('iframe').locator('a img');
    await img.waitFor({ state: 'visible', timeout: 10_000 });
    const impressions = async () =>
      (await events()).filter((e) => e.type === 'impression' && e.campaign_id === w.campaigns.banner);
    await eventually(async () => (await impressions()).length === 1);
    // onBidWon told us, once; it charged nothing.
    await eventually(async () => (await hbWins()) === 1);

    await tab.waitForTimeout(600); // a person looks before clicking
    const [landing] = await Promise.all([context.waitForEvent('page'), img.click({ position: { x: 40, y: 30 } })]);
    await landing.waitForLoadState();
    expect(landing.url()).toMatch(new RegExp(`^${hostBase}/landing\\?c=[0-9a-f-]{36}$`));
    const clicks = async () =>
      (await events()).filter((e) => e.type === 'click' && e.campaign_id === w.campaigns.banner);
    await eventually(async () => (await clicks()).length === 1);
    expect((await clicks())[0]).toMatchObject({ invalid: false });
    expect(landing.url()).toContain((await clicks())[0]?.click_id ?? 'missing');

    // Exactly once each, once everything has settled.
    await new Promise((r) => setTimeout(r, 300));
    const imps = await impressions();
    expect(imps).toHaveLength(1);
    expect((await clicks()).length).toBe(1);
    expect(imps[0]?.bid_id).toBe((await clicks())[0]?.bid_id);
    const charged = (await events()).filter(
      (e) => e.campaign_id === w.campaigns.banner && Number((e as { charge_nano?: number }).charge_nano ?? 0) > 0,
    );
    expect(charged.map((e) => e.type)).toEqual(['impression']);
    expect(errors).toEqual([]);
    await landing.close();
    await tab.close();
  });
});
