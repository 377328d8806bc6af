import type { BidResponse } from '@adnet/schemas/openrtb';
import { frequencyKey } from '@adnet/schemas/redis-keys';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, creativeForm, useTestApp } from '@adnet/test-support/admin';
import type { Account } from '@adnet/test-support/admin';
import { eventually, postBid, startEngine } from '@adnet/test-support/engine';
import type { TestEngine } from '@adnet/test-support/engine';
import { vastVerdict, xmlText } from '@adnet/test-support/hostile';
import { World, bannerRequest } from '@adnet/test-support/world';
import { userKeyOf } from '@adnet/engine/frequency-caps';

// The exchange side of /openrtb/bid through the real admin API, Redis and engine over HTTP: deals made by
// an admin reach the engine and carry `dealid`, private auctions, privacy signals, video lengths.

const fx = useTestApp();
let world: World;
let engine: TestEngine;
let adv: Account;
let partner = 0;
let otherPartner = 0;
const ids = { deal: 0, open: 0, capped: 0, video: 0 };
const UA = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/125.0 Safari/537.36';

beforeAll(async () => {
  world = await World.create(fx.app);
  partner = await world.partner();
  otherPartner = await world.partner(['192.0.2.9']);
  adv = await world.advertiser(1_000_000);
  ids.deal = (await world.campaign(adv, { bid_usd: 2 })).campaign.id;
  ids.open = (await world.campaign(adv, { bid_usd: 3 })).campaign.id;
  ids.capped = (
    await world.campaign(adv, { bid_usd: 5, frequency_cap: { impressions: 5, period_hours: 24 } })
  ).campaign.id;
  ids.video = (await world.campaign(adv, { format: 'video', bid_usd: 1 }, { duration_s: '20' })).campaign.id;
  engine = await startEngine(fx.redis.url);
  await eventually(() => (engine.engine.mirror.index?.candidateCount ?? 0) >= 4);
}, 60_000);
afterAll(async () => {
  await engine.stop();
});

const admin = () => ({ token: world.admin.token });
type Bids = BidResponse['seatbid'][number]['bid'];
let users = 0;
/** One bid request, from a user of its own: a capped campaign's ad to one user would hold back the next (frequency caps). */
async function bidOf(body: Record<string, unknown>) {
  const r = await postBid(engine.base, { ...body, user: { id: `bidder-${++users}` } });
  return {
    status: r.status,
    bid: r.status === 200 ? ((r.body as unknown as BidResponse).seatbid[0]?.bid as Bids)[0] : undefined,
  };
}
const withDeals = (deals: unknown[], privateAuction = 0, imp: Record<string, unknown> = {}) =>
  bannerRequest({}, { pmp: { private_auction: privateAuction, deals }, ...imp });

describe('deals', () => {
  it('admins create, list, change and delete deals; the engine bids on them with dealid at the deal floor', async () => {
    const created = await call(fx.app, 'POST', '/api/admin/deals', {
      ...admin(),
      json: { id: 'PMP/1', floor_usd: 1.5, partner_ids: [partner], campaign_ids: [ids.deal] },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      id: 'PMP/1',
      floor_usd: 1.5,
      partner_ids: [partner],
      campaign_ids: [ids.deal],
    });
    const listed = await call<{ deals: { id: string }[] }>(fx.app, 'GET', '/api/admin/deals', admin());
    expect(listed.body.deals.map((d) => d.id)).toEqual(['PMP/1']);
    expect((await call(fx.app, 'GET', `/api/admin/deals/${encodeURIComponent('PMP/1')}`, admin())).body).toMatchObject({
      floor_usd: 1.5,
    });

    // The deal outranks the open auction, where the 5.00 campaign would win.
    let won: Awaited<ReturnType<typeof bidOf>>['bid'];
    await eventually(async () => (won = (await bidOf(withDeals([{ id: 'PMP/1' }]))).bid)?.dealid === 'PMP/1');
    expect(won).toMatchObject({ cid: String(ids.deal), dealid: 'PMP/1', price: 1.5 });
    // The request's own deal floor, when higher, is cleared too.
    expect((await bidOf(withDeals([{ id: 'PMP/1', bidfloor: 1.9 }]))).bid).toMatchObject({
      dealid: 'PMP/1',
      price: 1.9,
    });
    // Without the deal, the same request is an open auction.
    expect((await bidOf(bannerRequest())).bid).toMatchObject({ cid: String(ids.capped) });
    expect((await bidOf(bannerRequest())).bid?.dealid).toBeUndefined();

    const patched = await call(fx.app, 'PATCH', `/api/admin/deals/${encodeURIComponent('PMP/1')}`, {
      ...admin(),
      json: { floor_usd: 1.75 },
    });
    expect(patched.body).toMatchObject({ floor_usd: 1.75, campaign_ids: [ids.deal] });
    await eventually(async () => (await bidOf(withDeals([{ id: 'PMP/1' }]))).bid?.price === 1.75);

    // A private auction: the deal's bid only, never an open one.
    expect((await bidOf(withDeals([{ id: 'PMP/1' }], 1))).bid).toMatchObject({ dealid: 'PMP/1' });
    expect((await bidOf(withDeals([{ id: 'PMP/1', bidfloor: 2.5 }], 1))).status).toBe(204);
    expect((await bidOf(withDeals([{ id: 'NO-SUCH-DEAL' }], 1))).status).toBe(204);

    const deleted = await call(fx.app, 'DELETE', `/api/admin/deals/${encodeURIComponent('PMP/1')}`, admin());
    expect(deleted).toMatchObject({ status: 200, body: { deleted: true } });
    await eventually(async () => (await bidOf(withDeals([{ id: 'PMP/1' }], 1))).status === 204);
    expect(engine.engine.mirror.index?.deals.size).toBe(0);
    expect((await call<{ deals: unknown[] }>(fx.app, 'GET', '/api/admin/deals', admin())).body.deals).toEqual([]);
    expect((await call(fx.app, 'DELETE', `/api/admin/deals/${encodeURIComponent('PMP/1')}`, admin())).status).toBe(404);
    // Its id is free again.
    const again = await call(fx.app, 'POST', '/api/admin/deals', {
      ...admin(),
      json: { id: 'PMP/1', floor_usd: 0, partner_ids: [partner], campaign_ids: [ids.deal] },
    });
    expect(again.status).toBe(201);
    await call(fx.app, 'DELETE', `/api/admin/deals/${encodeURIComponent('PMP/1')}`, admin());
  });

  it("a deal offered by another partner is not this partner's to offer", async () => {
    await call(fx.app, 'POST', '/api/admin/deals', {
      ...admin(),
      json: { id: 'THEIRS', floor_usd: 0.5, partner_ids: [otherPartner], campaign_ids: [ids.deal] },
    });
    await eventually(() => engine.engine.mirror.index?.deals.has('THEIRS') ?? false);
    expect((await bidOf(withDeals([{ id: 'THEIRS' }], 1))).status).toBe(204);
    expect((await bidOf(withDeals([{ id: 'THEIRS' }], 0))).bid).toMatchObject({ cid: String(ids.capped) });
    expect((await bidOf(withDeals([{ id: 'THEIRS' }], 0))).bid?.dealid).toBeUndefined();
    await call(fx.app, 'DELETE', '/api/admin/deals/THEIRS', admin());
  });

  it('ten admins creating one deal id at once: one gets it, the others 409, one deal is kept', async () => {
    const json = { id: 'RACE-1', floor_usd: 1, partner_ids: [partner], campaign_ids: [ids.deal] };
    const answers = await Promise.all(
      Array.from({ length: 10 }, () => call(fx.app, 'POST', '/api/admin/deals', { ...admin(), json })),
    );
    expect(answers.map((a) => a.status).sort()).toEqual([201, 409, 409, 409, 409, 409, 409, 409, 409, 409]);
    const listed = await call<{ deals: { id: string }[] }>(fx.app, 'GET', '/api/admin/deals', admin());
    expect(listed.body.deals.filter((d) => d.id === 'RACE-1')).toHaveLength(1);
    await call(fx.app, 'DELETE', '/api/admin/deals/RACE-1', admin());
  });

  it('bad input is a 400 naming each field; a taken id 409; only admins', async () => {
    const bad = await call(fx.app, 'POST', '/api/admin/deals', {
      ...admin(),
      json: { id: 'has space', floor_usd: -1, partner_ids: [], campaign_ids: ['x'] },
    });
    expect(bad.status).toBe(400);
    expect(Object.keys(bad.body.errors as object).sort()).toEqual(['campaign_ids.0', 'floor_usd', 'id', 'partner_ids']);
    const unknown = await call(fx.app, 'POST', '/api/admin/deals', {
      ...admin(),
      json: { id: 'D-1', floor_usd: 1.123456, partner_ids: [partner], campaign_ids: [ids.deal] },
    });
    expect(Object.keys(unknown.body.errors as object)).toEqual(['floor_usd']);
    const refs = await call(fx.app, 'POST', '/api/admin/deals', {
      ...admin(),
      json: { id: 'D-1', floor_usd: 1, partner_ids: [999_999], campaign_ids: [999_998] },
    });
    expect(refs.status).toBe(400);
    expect(refs.body.errors).toEqual({
      partner_ids: 'names no partner: 999999',
      campaign_ids: 'names no campaign: 999998',
    });
    const ok = { id: 'D-1', floor_usd: 1, partner_ids: [partner], campaign_ids: [ids.deal] };
    expect((await call(fx.app, 'POST', '/api/admin/deals', { ...admin(), json: ok })).status).toBe(201);
    expect((await call(fx.app, 'POST', '/api/admin/deals', { ...admin(), json: ok })).status).toBe(409);
    expect(
      (await call(fx.app, 'PATCH', '/api/admin/deals/D-1', { ...admin(), json: { partner_ids: [0] } })).body.errors,
    ).toHaveProperty(['partner_ids.0']);
    expect((await call(fx.app, 'PATCH', '/api/admin/deals/NOPE', { ...admin(), json: { floor_usd: 2 } })).status).toBe(
      404,
    );
    expect(
      (await call(fx.app, 'POST', '/api/admin/deals', { token: adv.token, json: { ...ok, id: 'D-2' } })).status,
    ).toBe(403);
    expect((await call(fx.app, 'GET', '/api/admin/deals', { token: adv.token })).status).toBe(403);
    await call(fx.app, 'DELETE', '/api/admin/deals/D-1', admin());
  });
});

describe('privacy signals', () => {
  const fcapKeys = async (user: string) => fx.app.svc.redis.exists(frequencyKey(userKeyOf(`p${partner}:${user}`)));

  it('COPPA, GDPR without consent and a CCPA opt-out keep capped campaigns off and the user out of the frequency store', async () => {
    const signals = [{ coppa: 1 }, { ext: { gdpr: 1 } }, { ext: { us_privacy: '1YYN' } }];
    for (const [i, regs] of signals.entries()) {
      const user = `private-${i}`;
      const r = await postBid(
        engine.base,
        bannerRequest({
          regs,
          user: { id: user },
          device: { ua: UA, ip: '203.0.113.7', devicetype: 2, language: 'en' },
        }),
      );
      const bid = (r.body as unknown as BidResponse).seatbid[0]?.bid[0];
      expect(bid?.cid, JSON.stringify(regs)).toBe(String(ids.open));
      // The win notice of that ad counts nothing against the user.
      expect((await fetch((bid?.nurl ?? '').replace('${AUCTION_PRICE}', '3'))).status).toBe(200);
      expect(await fcapKeys(user)).toBe(0);
    }
  });

  it('without such signals the capped campaign bids and its win is counted against the user', async () => {
    const user = 'counted-1';
    const r = await postBid(
      engine.base,
      bannerRequest({ regs: { coppa: 0, ext: { gdpr: 0, us_privacy: '1YNN' } }, user: { id: user } }),
    );
    const bid = (r.body as unknown as BidResponse).seatbid[0]?.bid[0];
    expect(bid?.cid).toBe(String(ids.capped));
    expect((await fetch((bid?.nurl ?? '').replace('${AUCTION_PRICE}', '4'))).status).toBe(200);
    await eventually(async () => (await fcapKeys(user)) === 1);
  });

  it('malformed privacy fields are a 400 naming the field', async () => {
    const r = await postBid(engine.base, bannerRequest({ regs: { ext: { gdpr: 'yes' } } }));
    expect(r.status).toBe(400);
    expect((r.body as { error: string }).error).toContain('regs.ext.gdpr');
  });
});

describe('video length', () => {
  const videoRequest = (v: Record<string, unknown>) => ({
    ...bannerRequest(),
    imp: [{ id: '1', video: { mimes: ['video/mp4'], protocols: [7], w: 640, h: 360, ...v } }],
  });

  it("bids only within minduration/maxduration, and its VAST carries the creative's length and passes the IAB VAST 4.0 schema", async () => {
    expect((await bidOf(videoRequest({ maxduration: 15 }))).status).toBe(204);
    expect((await bidOf(videoRequest({ minduration: 21 }))).status).toBe(204);
    const { bid } = await bidOf(videoRequest({ minduration: 5, maxduration: 30 }));
    expect(bid?.cid).toBe(String(ids.video));
    expect(xmlText(bid?.adm ?? '', 'Duration')).toBe('00:00:20');
    const verdict = vastVerdict(bid?.adm ?? '');
    expect(verdict.valid, verdict.output).toBe(true);
  });

  it('our own VAST zone says the same length', async () => {
    const zone = await world.zone({ format: 'video' });
    let xml = '';
    await eventually(async () => {
      xml = await (await fetch(`${engine.base}/vast/${zone.subid}.xml`, { headers: { 'user-agent': UA } })).text();
      return xml.includes('<Duration>');
    });
    expect(xmlText(xml, 'Duration')).toBe('00:00:20');
    const verdict = vastVerdict(xml);
    expect(verdict.valid, verdict.output).toBe(true);
  });

  it('duration_s is validated (1-600 whole seconds, video formats only) and kept', async () => {
    const campaignId = ids.video;
    for (const bad of ['0', '601', '1.5', 'ten']) {
      const r = await call(fx.app, 'POST', `/api/adv/campaigns/${campaignId}/creatives`, {
        token: adv.token,
        form: creativeForm({
          title: 'V',
          landing_url: 'https://shop.example.com/',
          video_url: 'https://cdn.example.com/v.mp4',
          duration_s: bad,
        }),
      });
      expect(r.status, bad).toBe(400);
      expect(Object.keys(r.body.errors as object)).toEqual(['duration_s']);
    }
    const banner = await call(fx.app, 'POST', `/api/adv/campaigns/${ids.open}/creatives`, {
      token: adv.token,
      form: creativeForm({ title: 'B', landing_url: 'https://shop.example.com/', duration_s: '10' }),
    });
    expect(banner.status).toBe(400);
    expect(banner.body.errors).toHaveProperty('duration_s');
    const good = await call<{ id: number; duration_s: number }>(
      fx.app,
      'POST',
      `/api/adv/campaigns/${campaignId}/creatives`,
      {
        token: adv.token,
        form: creativeForm({
          title: 'V',
          landing_url: 'https://shop.example.com/',
          video_url: 'https://cdn.example.com/v.mp4',
          duration_s: '45',
        }),
      },
    );
    expect(good.status).toBe(201);
    expect(good.body.duration_s).toBe(45);
    const patched = await call(fx.app, 'PATCH', `/api/adv/creatives/${good.body.id}`, {
      token: adv.token,
      json: { duration_s: 60 },
    });
    expect(patched.body).toMatchObject({ duration_s: 60, status: 'pending_moderation' });
    expect(
      (await call(fx.app, 'PATCH', `/api/adv/creatives/${good.body.id}`, { token: adv.token, json: { duration_s: 0 } }))
        .body.errors,
    ).toHaveProperty('duration_s');
  });
});
