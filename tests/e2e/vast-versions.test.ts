import { spawnSync } from 'node:child_process';
import type { BidResponse } from '@adnet/schemas/openrtb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '@adnet/test-support/admin';
import { postBid, servingZone, startEngine, streamedEvents } from '@adnet/test-support/engine';
import type { TestEngine } from '@adnet/test-support/engine';
import { documentVastVersion, vastVerdict } from '@adnet/test-support/hostile';
import { World, bannerRequest } from '@adnet/test-support/world';

// VAST in the version asked (docs/openrtb.md, docs/browser-endpoints.md): an OpenRTB video imp is answered in the
// highest version its `protocols` allow, with `bid.protocol` saying which; a zone's VAST URL gives 2.0 and 3.0
// with `?v=2` and `?v=3`; in each version the impression, quartile and click trackers count exactly once.

const fx = useTestApp();
let world: World;
let engine: TestEngine;
let subid = '';
let zoneId = 0;
const BROWSER = {
  'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/125.0 Safari/537.36',
  'accept-language': 'en-US,en;q=0.9',
};

beforeAll(async () => {
  world = await World.create(fx.app);
  await world.partner();
  const adv = await world.advertiser(100_000);
  await world.campaign(adv, { format: 'video', bid_usd: 4 });
  const zone = await world.zone({ format: 'video' });
  subid = zone.subid;
  zoneId = zone.id;
  engine = await startEngine(fx.redis.url);
  await servingZone(engine, subid, 1);
});
afterAll(async () => {
  await engine.stop();
});

const videoBid = (protocols: number[]) =>
  postBid(
    engine.base,
    bannerRequest({}, { banner: undefined, video: { mimes: ['video/mp4'], protocols, w: 640, h: 360 } }),
  );
const versionOf = (xml: string) => /<VAST [^>]*version="([^"]+)"/.exec(xml)?.[1];
const cdataOf = (xml: string, pattern: string) =>
  new RegExp(`${pattern}><!\\[CDATA\\[(.+?)\\]\\]>`).exec(xml)?.[1] ?? '';

describe('OpenRTB video: the highest VAST version the imp’s protocols allow', () => {
  it('answers each protocols list in its version, bid.protocol saying which, each document valid', async () => {
    expect(spawnSync('xmllint', ['--version']).status, 'install libxml2-utils for xmllint').toBe(0);
    const cases: [number[], number, string][] = [
      [[2], 2, '2.0'],
      [[2, 3], 3, '3.0'],
      [[2, 3, 5, 6], 3, '3.0'],
      [[7], 7, '4.0'],
      [[3, 7], 7, '4.0'],
      [[2, 3, 5, 6, 7, 8, 11, 12, 13, 14], 7, '4.0'],
    ];
    for (const [protocols, protocol, version] of cases) {
      const r = await videoBid(protocols);
      expect(r.status, String(protocols)).toBe(200);
      const bid = (r.body as unknown as BidResponse).seatbid[0]?.bid[0];
      expect([protocols, bid?.protocol, versionOf(bid?.adm ?? '')]).toEqual([protocols, protocol, version]);
      expect(documentVastVersion(bid?.adm ?? '')).toBe(version);
      const verdict = vastVerdict(bid?.adm ?? '');
      expect(verdict.valid, `${String(protocols)}: ${verdict.output}`).toBe(true);
    }
  });

  it('no bid (204, never a 5xx) for an imp whose protocols allow none of our versions: VAST 4.1 alone, unknown codes, wrappers only', async () => {
    for (const protocols of [[11], [99], [99, 1000], [5, 6, 8], [13, 14]]) {
      const r = await videoBid(protocols);
      expect([protocols, r.status]).toEqual([protocols, 204]);
    }
  });
});

describe('GET /vast/<subid>.xml?v=', () => {
  const vast = async (query: string) => {
    const res = await fetch(`${engine.base}/vast/${subid}.xml${query}`, { headers: BROWSER });
    return { status: res.status, type: res.headers.get('content-type'), text: await res.text() };
  };

  it('stays 4.0 without v (and with v=4); an empty document of the version asked without an ad', async () => {
    for (const q of ['', '?v=4', '?v=4.0']) expect(versionOf((await vast(q)).text), q).toBe('4.0');
    const none = await fetch(`${engine.base}/vast/unknown.xml?v=2`);
    expect(await none.text()).toBe('<?xml version="1.0" encoding="UTF-8"?><VAST version="2.0"/>');
    expect(await (await fetch(`${engine.base}/vast/unknown.xml?v=3`)).text()).toBe(
      '<?xml version="1.0" encoding="UTF-8"?><VAST version="3.0"/>',
    );
  });

  it('400 in the error shape for a version we do not write, never a 5xx', async () => {
    for (const q of ['?v=5', '?v=1', '?v=', '?v=4.1', '?v=2&v=9', '?v=%00']) {
      const r = await vast(q);
      expect([q, r.status]).toEqual([q, 400]);
      expect(JSON.parse(r.text)).toEqual({
        error: expect.stringContaining('v must be 2, 3 or 4'),
        code: 'bad_request',
      });
    }
    // Also for an unknown zone: the query is read first.
    expect((await fetch(`${engine.base}/vast/unknown.xml?v=5`)).status).toBe(400);
  });

  it.each([
    ['2', '2.0'],
    ['3', '3.0'],
  ])('?v=%s is VAST %s whose impression, quartile and click count exactly once', async (v, version) => {
    const r = await vast(`?v=${v}`);
    expect(r.status).toBe(200);
    expect(r.type).toContain('application/xml');
    expect(r.text).toContain(`<VAST version="${version}">`);
    expect(r.text).not.toContain('xmlns=');
    const verdict = vastVerdict(r.text);
    expect(verdict.valid, verdict.output).toBe(true);

    const bidId = /<Ad id="([^"]+)">/.exec(r.text)?.[1] ?? '';
    const pixel = cdataOf(r.text, '<Impression id="imp"');
    const quartile = cdataOf(r.text, '<Tracking event="firstQuartile"');
    const click = cdataOf(r.text, '<ClickThrough id="click"');
    expect([pixel, quartile, click].every((u) => u.startsWith(engine.base))).toBe(true);
    for (const url of [pixel, pixel, quartile, quartile])
      expect((await fetch(url, { headers: BROWSER })).status).toBe(200);
    // A person needs a moment after the ad appears to click it (server-click-rules.ts).
    await new Promise((done) => setTimeout(done, 1_100));
    for (let i = 0; i < 2; i++) expect((await fetch(click, { redirect: 'manual', headers: BROWSER })).status).toBe(302);

    const mine = (await streamedEvents(fx.app.svc.redis, engine)).filter((e) => e.bid_id === bidId);
    const impressions = mine.filter((e) => e.type === 'impression');
    expect(impressions).toHaveLength(1);
    expect(impressions[0]).toMatchObject({ zone_id: zoneId, charge_nano: expect.any(Number), integration: 'vast' });
    expect(Number(impressions[0]?.charge_nano)).toBeGreaterThan(0);
    expect(mine.filter((e) => e.type === 'vast').map((e) => e.reason)).toEqual(['firstQuartile']);
    expect(mine.every((e) => e.integration === 'vast')).toBe(true);
    expect(mine.filter((e) => e.type === 'click').map((e) => [e.invalid, e.reason ?? null])).toEqual([
      [false, null],
      [true, 'duplicate'],
    ]);
  });
});
