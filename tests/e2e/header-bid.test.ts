import { HB_MAX_IMPS, hbResponseSchema } from '@adnet/schemas/header-bid';
import type { HbResponse } from '@adnet/schemas/header-bid';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '@adnet/test-support/admin';
import { eventually, streamedEvents } from '@adnet/test-support/engine';
import type { TestEngine } from '@adnet/test-support/engine';
import { headerBidWorld } from './header-bid-world.ts';

// POST /hb/bid, our Prebid.js adapter's endpoint (docs/browser-endpoints.md#header-bidding-prebidjs), on a real engine.

const fx = useTestApp();
let engine: TestEngine;
const subids: Record<string, string> = {};
const zoneIds: Record<string, number> = {};
let origin = '';
let otherSubid = '';
const UA = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/125.0 Safari/537.36';

beforeAll(async () => {
  const w = await headerBidWorld(fx.app, fx.redis.url);
  engine = w.engine;
  origin = `https://www.${w.domain}`;
  otherSubid = w.foreignSubid;
  for (const [name, z] of Object.entries(w.zones)) [subids[name], zoneIds[name]] = [z.subid, z.id];
});
afterAll(async () => {
  await engine.stop();
});

const banner = (tagid: string, id = '1') => ({ id, tagid, banner: { format: [{ w: 300, h: 250 }] } });
/** As Prebid sends it: text/plain (no preflight), from the publisher's page. */
const post = (body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${engine.base}/hb/bid`, {
    method: 'POST',
    headers: { 'content-type': 'text/plain', 'user-agent': UA, origin, ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
const bidOf = async (res: Response): Promise<HbResponse> => hbResponseSchema.parse(await res.json());
const events = () => streamedEvents(fx.app.svc.redis, engine);
const metric = async (name: string) =>
  Number(new RegExp(`^${name}(?:\\{[^}]*\\})? (\\d+)`, 'm').exec(await engine.engine.metrics.text())?.[1] ?? 0);

describe('POST /hb/bid', () => {
  it('answers a banner zone with markup that fires our render beacon and clicks through /c; the beacon alone charges, once', async () => {
    const res = await post({ id: 'auction-1', imp: [banner(subids.banner ?? '')] });
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBe(origin);
    const body = await bidOf(res);
    expect(body).toMatchObject({ id: 'auction-1', cur: 'USD', seatbid: [{ seat: 'adnet' }] });
    const bid = body.seatbid[0]?.bid[0];
    expect(bid).toMatchObject({ impid: '1', w: 300, h: 250, mtype: 1, nurl: expect.stringContaining('/hb/won/') });
    expect(bid?.price).toBeGreaterThan(0);
    const beacon = /"(http[^"]+\/b\/[^"]+)"/.exec(bid?.adm ?? '')?.[1] ?? '';
    expect(bid?.adm).toMatch(/<a href="[^"]+\/c\/[^"]+"/);
    expect(beacon).not.toBe('');
    // Answering counted and charged nothing; nor does the win notice, however often it is sent.
    const mine = async () => (await events()).filter((e) => e.bid_id === bid?.id);
    const wonBefore = await metric('adnet_engine_hb_wins_total');
    for (let i = 0; i < 3; i++) expect((await fetch(bid?.nurl ?? '')).status).toBe(200);
    expect((await metric('adnet_engine_hb_wins_total')) - wonBefore).toBe(1);
    await new Promise((r) => setTimeout(r, 100));
    expect(await mine()).toEqual([]);
    // The render beacon from the browser the ad was answered to: the impression, counted and charged once.
    for (let i = 0; i < 2; i++) expect((await fetch(beacon, { headers: { 'user-agent': UA } })).status).toBe(200);
    await eventually(async () => (await mine()).some((e) => e.type === 'impression'));
    const counted = (await mine()).filter((e) => e.type === 'impression');
    expect(counted).toHaveLength(1);
    expect(counted[0]).toMatchObject({ zone_id: zoneIds.banner, integration: 'prebid' });
    expect(Number(counted[0]?.charge_nano)).toBeGreaterThan(0);
  });

  it('answers native (Native 1.2 with our beacon as event tracker) and video (VAST) zones', async () => {
    const nativeRequest = JSON.stringify({
      ver: '1.2',
      assets: [
        { id: 7, required: 1, title: { len: 80 } },
        { id: 8, required: 0, img: { type: 3, wmin: 100, hmin: 100 } },
      ],
    });
    const res = await post({
      id: 'auction-2',
      imp: [
        { id: 'n', tagid: subids.native, native: { request: nativeRequest } },
        { id: 'v', tagid: subids.video, video: { mimes: ['video/mp4'], protocols: [2, 3, 7], w: 640, h: 360 } },
      ],
    });
    const bids = (await bidOf(res)).seatbid[0]?.bid ?? [];
    const native = bids.find((b) => b.impid === 'n');
    expect(native?.mtype).toBe(4);
    const adm = JSON.parse(native?.adm ?? '{}') as Record<string, unknown>;
    expect(adm).toMatchObject({
      ver: '1.2',
      assets: expect.arrayContaining([expect.objectContaining({ id: 7, title: { text: 'Great offer' } })]),
      link: { url: expect.stringMatching(/\/c\//) },
      eventtrackers: [{ event: 1, method: 1, url: expect.stringMatching(/\/b\//) }],
    });
    const video = bids.find((b) => b.impid === 'v');
    expect(video).toMatchObject({ mtype: 2, w: 640, h: 360 });
    expect(video?.adm).toMatch(/<VAST version="4\.0"/);
    expect(video?.adm).toMatch(/<Impression id="imp"><!\[CDATA\[.+\/openrtb\/imptracker\//);
  });

  it("counts a click on a native ad Prebid drew with the publisher's template, once, after its beacon", async () => {
    const nativeRequest = JSON.stringify({ ver: '1.2', assets: [{ id: 1, required: 1, title: { len: 80 } }] });
    const res = await post({
      id: 'auction-n',
      imp: [{ id: 'n', tagid: subids.native, native: { request: nativeRequest } }],
    });
    const bid = (await bidOf(res)).seatbid[0]?.bid[0];
    const adm = JSON.parse(bid?.adm ?? '{}') as { link: { url: string }; eventtrackers: { url: string }[] };
    const headers = { 'user-agent': UA };
    // A bare link, as the template has it: no measurements of ours, so it waits for the beacon and a moment after.
    expect((await fetch(adm.link.url, { redirect: 'manual', headers })).status).toBe(302);
    expect((await fetch(adm.eventtrackers[0]?.url ?? '', { headers })).status).toBe(200);
    await new Promise((r) => setTimeout(r, 1_100));
    for (let i = 0; i < 2; i++) expect((await fetch(adm.link.url, { redirect: 'manual', headers })).status).toBe(302);
    await eventually(
      async () => (await events()).filter((e) => e.type === 'click' && e.bid_id === bid?.id).length === 3,
    );
    const clicks = (await events()).filter((e) => e.type === 'click' && e.bid_id === bid?.id);
    expect(clicks.map((e) => [e.invalid, e.reason ?? null, e.integration])).toEqual([
      [true, 'no_impression', 'prebid'],
      [false, null, 'prebid'],
      [true, 'duplicate', 'prebid'],
    ]);
  });

  it('answers the preflight and reads JSON bodies too', async () => {
    const pre = await fetch(`${engine.base}/hb/bid`, { method: 'OPTIONS', headers: { origin } });
    expect(pre.status).toBe(204);
    expect(pre.headers.get('access-control-allow-origin')).toBe(origin);
    expect(pre.headers.get('access-control-allow-methods')).toContain('POST');
    expect(pre.headers.get('access-control-allow-headers')).toContain('content-type');
    expect(pre.headers.get('access-control-allow-credentials')).toBeNull();
    const res = await post({ id: 'a', imp: [banner(subids.banner ?? '')] }, { 'content-type': 'application/json' });
    expect(res.status).toBe(200);
  });
});

describe('POST /hb/bid: bad input', () => {
  const noBids = async (reason: string) =>
    (await events()).filter((e) => e.type === 'nobid' && e.reason === reason && e.zone_id === zoneIds.banner).length;

  it('no bid (204) for an unknown or paused zone, a zone of another kind or size, or no zone at all', async () => {
    for (const imp of [
      banner('nosuchzone'),
      banner(subids.paused ?? ''),
      { id: '1', tagid: subids.native, banner: { w: 300, h: 250 } },
      { id: '1', tagid: subids.banner, banner: { w: 728, h: 90 } },
      { id: '1', tagid: subids.video, video: { mimes: ['video/webm'] } },
    ]) {
      const res = await post({ id: 'x', imp: [imp] });
      expect(res.status, JSON.stringify(imp)).toBe(204);
      expect(res.headers.get('access-control-allow-origin')).toBe(origin);
    }
  });

  it("no bid for a tagid that names another publisher's zone from this page (foreign_origin, recorded)", async () => {
    const before = (await events()).filter((e) => e.type === 'nobid' && e.reason === 'foreign_origin').length;
    expect((await post({ id: 'x', imp: [banner(otherSubid)] })).status).toBe(204);
    expect(
      (await post({ id: 'x', imp: [banner(subids.banner ?? '')] }, { origin: 'https://ticket-farm.test' })).status,
    ).toBe(204);
    await eventually(
      async () =>
        (await events()).filter((e) => e.type === 'nobid' && e.reason === 'foreign_origin').length === before + 2,
    );
    expect(await noBids('foreign_origin')).toBeGreaterThanOrEqual(1);
  });

  it('one bid per zone however often a request names it', async () => {
    const res = await post({ id: 'x', imp: [banner(subids.banner ?? '', 'a'), banner(subids.banner ?? '', 'b')] });
    expect((await bidOf(res)).seatbid[0]?.bid.map((b) => b.impid)).toEqual(['a']);
  });

  it('400 {error, code} naming what is wrong: not JSON, no id, no imps, too many imps, fields of the wrong type', async () => {
    const many = Array.from({ length: HB_MAX_IMPS + 1 }, (_, i) => banner(subids.banner ?? '', String(i)));
    for (const [body, says] of [
      ['{"id": "x", "imp": [', /^body: must be a JSON bid request$/],
      ['null', /^body: /],
      [{ imp: [banner('z')] }, /^id: /],
      [{ id: 'x', imp: [] }, /^imp: imp must list at least one/],
      [{ id: 'x', imp: many }, new RegExp(`^imp: imp may list at most ${HB_MAX_IMPS}`)],
      [{ id: 'x', imp: [{ id: '1' }] }, /^imp\.0\.tagid: /],
      [{ id: 'x', imp: [{ id: '1', tagid: 'z', banner: { w: 'wide' } }] }, /^imp\.0\.banner\.w: /],
    ] as const) {
      const res = await post(body);
      expect(res.status, JSON.stringify(body).slice(0, 80)).toBe(400);
      const err = (await res.json()) as { error: string; code: string };
      expect(err.code).toBe('bad_request');
      expect(err.error).toMatch(says);
    }
  });

  it('413 for a body over the limit, never read whole', async () => {
    const res = await post({ id: 'x', imp: [banner(subids.banner ?? '')], pad: 'x'.repeat(40 * 1024) });
    expect(res.status).toBe(413);
  });

  it('a win notice for a forged or foreign ticket is 404 and counts nothing', async () => {
    const before = await metric('adnet_engine_hb_wins_total');
    expect((await fetch(`${engine.base}/hb/won/forged.ticket`)).status).toBe(404);
    expect(await metric('adnet_engine_hb_wins_total')).toBe(before);
  });
});
