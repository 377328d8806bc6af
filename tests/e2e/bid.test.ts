import { gzipSync } from 'node:zlib';
import type { BidResponse } from '@adnet/schemas/openrtb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, useTestApp } from '@adnet/test-support/admin';
import type { Account } from '@adnet/test-support/admin';
import { decodeTicket, encodeTicket } from '@adnet/engine/signed-token';
import type { BidTicket } from '@adnet/engine/signed-token';
import { eventually, postBid, startEngine, streamedEvents } from '@adnet/test-support/engine';
import type { TestEngine } from '@adnet/test-support/engine';
import { World, bannerRequest } from '@adnet/test-support/world';

const fx = useTestApp();
let world: World;
let engine: TestEngine;
let adv: Account;
let bannerCampaign: number;

beforeAll(async () => {
  world = await World.create(fx.app);
  await world.partner();
  adv = await world.advertiser(100_000);
  bannerCampaign = (
    await world.campaign(adv, { geo_include: ['us', 'ca'], languages: ['en'], device_types: ['desktop'], bid_usd: 1.2 })
  ).campaign.id;
  await world.campaign(adv, { format: 'native', vertical: 'dating', bid_usd: 2 });
  await world.campaign(adv, { format: 'video', bid_type: 'cpc', bid_usd: 0.5 });
  engine = await startEngine(fx.redis.url);
  await eventually(() => (engine.engine.mirror.index?.candidateCount ?? 0) === 3);
});
afterAll(async () => {
  await engine.stop();
});

const bidOf = (r: { body: unknown }) =>
  typeof r.body === 'object' ? (r.body as BidResponse).seatbid[0]?.bid[0] : undefined;

describe('POST /openrtb/bid', () => {
  it('answers a banner impression with a complete bid', async () => {
    const req = bannerRequest();
    const r = await postBid(engine.base, req);
    expect(r.status).toBe(200);
    const body = r.body as unknown as BidResponse;
    expect(body.id).toBe(req.id);
    expect(body.cur).toBe('USD');
    const bid = bidOf(r);
    expect(bid).toMatchObject({
      impid: '1',
      cid: String(bannerCampaign),
      w: 300,
      h: 250,
      adomain: ['shop.example.com'],
    });
    // Only bidder: pays the floor (second price rule), never more than its bid.
    expect(bid?.price).toBe(0.1);
    // The click link goes through /c and lands with a fresh click id.
    const clickUrl = /href="([^"]+)"/.exec(bid?.adm ?? '')?.[1]?.replaceAll('&amp;', '&') ?? '';
    expect(clickUrl).toContain('/c/');
    const click = await fetch(`${clickUrl}?ttc=900&x=10&y=10&focus=1&fp=fingerprint-1`, {
      redirect: 'manual',
      headers: { 'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) Chrome/125.0' },
    });
    expect(click.status).toBe(302);
    expect(click.headers.get('location')).toMatch(/^https:\/\/shop\.example\.com\/p\?c=[0-9a-f-]{36}$/);
    expect(bid?.nurl).toMatch(/\/openrtb\/win\/[^?]+\?price=\$\{AUCTION_PRICE\}$/);
    expect(bid?.crid).toMatch(/^\d+$/);
  });

  // The OpenRTB cases (matching, no-bid reasons, malformed requests) are fixtures in tests/e2e/openrtb/; these are hostile bodies.
  it('400 with a reason for hostile bodies, 413 for oversize, and keeps serving', async () => {
    const cases: [string | Buffer, number][] = [
      [Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 7919) % 256)), 400],
      ['['.repeat(50_000), 400],
      [JSON.stringify({ id: 'x', imp: Array.from({ length: 1_000 }, (_, i) => ({ id: String(i) })) }), 400],
      ['x'.repeat(70 * 1024), 413],
    ];
    for (const [body, status] of cases) {
      const r = await postBid(engine.base, body);
      expect(r.status, String(body).slice(0, 40)).toBe(status);
      if (status === 400) expect((r.body as { error: string }).error.length).toBeGreaterThan(3);
    }
    expect((await postBid(engine.base, bannerRequest())).status).toBe(200);
  });

  it('takes gzip-encoded bodies, refuses a bomb and other encodings, and says its OpenRTB version on every answer', async () => {
    const zipped = await postBid(engine.base, gzipSync(JSON.stringify(bannerRequest())), {
      'content-encoding': 'gzip',
    });
    expect(zipped.status).toBe(200);
    expect(zipped.headers.get('x-openrtb-version')).toBe('2.5');
    // 64 KiB on the wire, tens of megabytes inflated: refused without inflating it all.
    const bomb = gzipSync(Buffer.alloc(40 * 1024 * 1024, 32));
    expect(bomb.length).toBeLessThan(64 * 1024);
    const refused = await postBid(engine.base, bomb, { 'content-encoding': 'gzip' });
    expect(refused.status).toBe(400);
    expect((refused.body as { error: string }).error).toMatch(/inflates past/);
    expect((await postBid(engine.base, 'not gzip', { 'content-encoding': 'gzip' })).status).toBe(400);
    expect((await postBid(engine.base, JSON.stringify(bannerRequest()), { 'content-encoding': 'br' })).status).toBe(
      400,
    );
    const none = await postBid(engine.base, bannerRequest({ imp: [{ id: '1', banner: { w: 160, h: 600 } }] }));
    expect([none.status, none.headers.get('x-openrtb-version')]).toEqual([204, '2.5']);
  });
});

describe('metrics and request ids', () => {
  // Read from the text a scrape gets: the sum over the series whose labels include `labels`.
  const count = async (name: string, labels: Record<string, string>): Promise<number> => {
    let sum = 0;
    for (const line of (await engine.engine.metrics.text()).split('\n')) {
      const m = /^(\w+)\{(.*)\} (\S+)$/.exec(line);
      if (!m || m[1] !== name) continue;
      const have: Record<string, string | undefined> = Object.fromEntries(
        [...(m[2] ?? '').matchAll(/(\w+)="([^"]*)"/g)].map((x) => [x[1], x[2]]),
      );
      if (Object.entries(labels).every(([k, want]) => have[k] === want)) sum += Number(m[3]);
    }
    return sum;
  };

  it('counts bids, no-bids by reason and answers by route; every answer carries a request id', async () => {
    const before = {
      bids: await count('adnet_engine_events_total', { type: 'bid' }),
      language: await count('adnet_engine_events_total', { type: 'nobid', reason: 'language' }),
      floor: await count('adnet_engine_events_total', { type: 'nobid', reason: 'below_floor' }),
      ok: await count('adnet_engine_http_requests_total', { route: '/openrtb/bid', status: '200' }),
      noContent: await count('adnet_engine_http_requests_total', { route: '/openrtb/bid', status: '204' }),
    };
    const first = await postBid(engine.base, bannerRequest());
    const second = await postBid(engine.base, bannerRequest(), { 'x-request-id': 'partner-trace.42' });
    expect([first.status, second.status]).toEqual([200, 200]);
    expect(first.headers.get('x-request-id')).toMatch(/^[0-9a-f]+-[0-9a-z]+$/);
    expect(second.headers.get('x-request-id')).toBe('partner-trace.42');
    // A header that is not a sane token is replaced, not echoed.
    const odd = await postBid(engine.base, bannerRequest({ device: { geo: { country: 'USA' }, language: 'fr' } }), {
      'x-request-id': 'a b<script>',
    });
    expect(odd.status).toBe(204);
    expect(odd.headers.get('x-request-id')).not.toContain('<');
    expect((await postBid(engine.base, bannerRequest({}, { bidfloor: 5 }))).status).toBe(204);

    expect(await count('adnet_engine_events_total', { type: 'bid' })).toBe(before.bids + 2);
    expect(await count('adnet_engine_events_total', { type: 'nobid', reason: 'language' })).toBe(before.language + 1);
    expect(await count('adnet_engine_events_total', { type: 'nobid', reason: 'below_floor' })).toBe(before.floor + 1);
    expect(await count('adnet_engine_http_requests_total', { route: '/openrtb/bid', status: '200' })).toBe(
      before.ok + 2,
    );
    expect(await count('adnet_engine_http_requests_total', { route: '/openrtb/bid', status: '204' })).toBe(
      before.noContent + 2,
    );
    expect(await count('adnet_engine_auction_duration_seconds_count', {})).toBeGreaterThanOrEqual(4);
    expect(
      await count('adnet_engine_http_request_duration_seconds_bucket', { route: '/openrtb/bid', le: '+Inf' }),
    ).toBe(await count('adnet_engine_http_requests_total', { route: '/openrtb/bid' }));
    const text = await engine.engine.metrics.text();
    expect(text).toContain('adnet_engine_budget_reservations_total{pool="campaign",result="granted"');
    expect(text).toMatch(/adnet_engine_index_candidates\{engine="[0-9a-f]+"\} \d+/);
  });
});

describe('budget slices reserved ahead of traffic', () => {
  it("a newly activated campaign's very first bid request is answered", async () => {
    const a = await world.advertiser(10_000);
    const { campaign } = await world.campaign(a, { geo_include: ['mx'] });
    await eventually(() => engine.engine.mirror.index?.campaigns.get(campaign.id)?.status === 'active');
    // Longer than a spend-flush cycle, which once handed prewarmed slices back as idle.
    await new Promise((r) => setTimeout(r, 500));
    const r = await postBid(
      engine.base,
      bannerRequest({ device: { geo: { country: 'MEX' }, language: 'en', devicetype: 2 } }),
    );
    expect(r.status).toBe(200);
    expect(bidOf(r)?.cid).toBe(String(campaign.id));
  });
});

describe('win notices and impression pixels', () => {
  it('counts a win once, charges the clearing price, and refuses forgeries', async () => {
    const bid = bidOf(await postBid(engine.base, bannerRequest()));
    const nurl = (bid?.nurl ?? '').replace('${AUCTION_PRICE}', '0.08');
    const first = await (await fetch(nurl)).json();
    const again = await (await fetch(nurl)).json();
    expect(first).toEqual({ ok: true, counted: true });
    expect(again).toEqual({ ok: true, counted: false });
    const [path] = nurl.split('?');
    const forged = (path ?? '').slice(0, -3) + 'AAA';
    expect((await fetch(`${forged}?price=0.01`)).status).toBe(403);
    expect((await fetch(nurl.replace('0.08', 'abc'))).status).toBe(400);
  });

  it('spend from many wins reaches the campaign and the ledger exactly', async () => {
    const a = await world.advertiser(10_000);
    const { campaign } = await world.campaign(a, { geo_include: ['gb'], bid_usd: 3 });
    await eventually(() => engine.engine.mirror.index?.campaigns.get(campaign.id)?.status === 'active');
    // A $2.50 floor makes our (second-price) bid $2.50, and the exchange's clearing price may not exceed it.
    const gb = bannerRequest({ device: { geo: { country: 'GBR' }, language: 'en' } }, { bidfloor: 2.5 });
    // A new campaign bids once its first budget slice has arrived (the hot path never waits for it).
    // Unanswered bids take budget but are never charged: only wins move money.
    await eventually(
      async () => bidOf(await postBid(engine.base, { ...gb, id: 'gb-probe' }))?.cid === String(campaign.id),
    );
    let wins = 0;
    for (let i = 0; i < 100; i++) {
      const bid = bidOf(await postBid(engine.base, { ...gb, id: `gb-${i}` }));
      if (bid?.cid !== String(campaign.id)) continue;
      // $2.50 CPM clearing price: 250 000 micro-cents = 0.25 cents per impression.
      expect(bid.price).toBe(2.5);
      await fetch(bid.nurl.replace('${AUCTION_PRICE}', '2.5'));
      wins++;
    }
    expect(wins).toBe(100);
    await engine.engine.budget.flush();
    const c = await call<{ daily_spent_cents: number }>(fx.app, 'GET', `/api/adv/campaigns/${campaign.id}`, {
      token: a.token,
    });
    expect(c.body.daily_spent_cents).toBe(25);
    const bal = await call<{ balance_cents: number; ledger: { kind: string; amount_cents: number }[] }>(
      fx.app,
      'GET',
      '/api/adv/balance',
      { token: a.token },
    );
    expect(bal.body.balance_cents).toBe(10_000 - 25);
    expect(bal.body.ledger.filter((e) => e.kind === 'debit').reduce((s, e) => s + e.amount_cents, 0)).toBe(-25);
  });

  it('the VAST impression pixel counts once and answers a GIF', async () => {
    const bid = bidOf(
      await postBid(engine.base, bannerRequest({}, { banner: undefined, video: { mimes: ['video/mp4'] } })),
    );
    const pixel = /<Impression id="imp"><!\[CDATA\[(.+?)\]\]>/.exec(bid?.adm ?? '')?.[1] ?? '';
    const r = await fetch(pixel);
    expect(r.headers.get('content-type')).toBe('image/gif');
    expect((await r.arrayBuffer()).byteLength).toBeGreaterThan(30);
    await fetch(pixel);
    const token = pixel.split('/').pop() ?? '';
    expect((await fetch(pixel.replace(token, `${token.slice(0, -2)}zz`))).status).toBe(404);
  });
});

describe('what is never charged', () => {
  const uncounted = async (bidId: string) =>
    (await streamedEvents(fx.app.svc.redis, engine))
      .filter((e) => e.bid_id === bidId && e.type === 'uncounted')
      .map((e) => [e.of, e.reason]);

  it('answers a test: 1 request as usual, charges nothing for its win, pixel or click, and keeps it apart', async () => {
    const a = await world.advertiser(10_000);
    const { campaign } = await world.campaign(a, { geo_include: ['nz'], bid_usd: 2, format: 'video', bid_type: 'cpc' });
    await eventually(() => engine.engine.mirror.index?.campaigns.get(campaign.id)?.status === 'active');
    const req = bannerRequest(
      { test: 1, device: { geo: { country: 'NZL' }, language: 'en' } },
      { banner: undefined, video: { mimes: ['video/mp4'] } },
    );
    let bid = bidOf(await postBid(engine.base, req));
    await eventually(
      async () =>
        (bid = bidOf(await postBid(engine.base, { ...req, id: `t-${Date.now()}` })))?.cid === String(campaign.id),
    );
    expect(bid?.price).toBeGreaterThan(0);
    expect(await (await fetch((bid?.nurl ?? '').replace('${AUCTION_PRICE}', '1.5'))).json()).toEqual({
      ok: true,
      counted: false,
    });
    const pixel = /<Impression id="imp"><!\[CDATA\[(.+?)\]\]>/.exec(bid?.adm ?? '')?.[1] ?? '';
    expect((await fetch(pixel)).status).toBe(200);
    const click = /<ClickThrough id="click"><!\[CDATA\[(.+?)\]\]>/.exec(bid?.adm ?? '')?.[1] ?? '';
    expect(
      (
        await fetch(`${click}?ttc=900&x=1&y=1&focus=1&fp=fingerprint-test`, {
          redirect: 'manual',
          headers: { 'user-agent': 'Mozilla/5.0 (X11) Chrome/125.0' },
        })
      ).status,
    ).toBe(302);
    const bidId = bid?.id ?? '';
    expect((await uncounted(bidId)).sort()).toEqual([
      ['bid', 'test'],
      ['imp', 'test'],
      ['win', 'test'],
    ]);
    const events = (await streamedEvents(fx.app.svc.redis, engine)).filter((e) => e.bid_id === bidId);
    expect(events.filter((e) => e.type === 'bid' || e.type === 'win')).toHaveLength(0);
    expect(events.find((e) => e.type === 'click')).toMatchObject({ invalid: true, reason: 'test', charge_nano: 0 });
    await engine.engine.budget.flush();
    const c = await call<{ daily_spent_cents: number }>(fx.app, 'GET', `/api/adv/campaigns/${campaign.id}`, {
      token: a.token,
    });
    expect(c.body.daily_spent_cents).toBe(0);
  });

  it('records a win notice or pixel that comes too late for its ticket, and charges nothing', async () => {
    const bid = bidOf(await postBid(engine.base, bannerRequest()));
    const [path] = (bid?.nurl ?? '').split('?');
    const token = path?.split('/').pop() ?? '';
    const ticket = decodeTicket('t'.repeat(40), token) as BidTicket;
    // Sixteen minutes old: past the win notice's fifteen.
    const late = encodeTicket('t'.repeat(40), { ...ticket, issuedAt: ticket.issuedAt - 16 * 60 });
    const r = await fetch(`${engine.base}/openrtb/win/${late}?price=0.5`);
    expect(await r.json()).toEqual({ ok: true, counted: false });
    expect(await uncounted(ticket.bidId)).toEqual([['win', 'expired']]);
    // The same ticket within its age still counts once.
    expect(await (await fetch(`${engine.base}/openrtb/win/${token}?price=0.5`)).json()).toEqual({
      ok: true,
      counted: true,
    });
  });
});
