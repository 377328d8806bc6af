import { budgetDay } from '@adnet/schemas/budget-day';
import type { BidResponse } from '@adnet/schemas/openrtb';
import { advertiserHoldKey, campaignPoolKey } from '@adnet/schemas/redis-keys';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, useTestApp } from '@adnet/test-support/admin';
import { eventually, postBid, startEngine, streamedEvents } from '@adnet/test-support/engine';
import type { TestEngine } from '@adnet/test-support/engine';
import { World } from '@adnet/test-support/world';
import { openRtbFixtureSchema } from './fixture.ts';
import type { OpenRtbFixture } from './fixture.ts';

// One driver for every OpenRTB case under exemplary/ and supplemental/: each
// case builds its campaigns through the admin API, sends its request to a real
// engine, checks the answer (and, for a no-bid, the reason recorded in the
// event stream), then pauses its campaigns so the next case starts clean.

const here = import.meta.dirname;
const cases = ['exemplary', 'supplemental'].flatMap((dir) =>
  readdirSync(join(here, dir))
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => ({
      name: `${dir}/${f}`,
      fixture: openRtbFixtureSchema.parse(JSON.parse(readFileSync(join(here, dir, f), 'utf8'))),
    })),
);

const fx = useTestApp();
let world: World;
let engine: TestEngine;
let run = 0;

beforeAll(async () => {
  world = await World.create(fx.app);
  await world.partner();
  engine = await startEngine(fx.redis.url);
});
afterAll(async () => {
  await engine.stop();
});

interface Built {
  advertiserToken: string;
  campaigns: { id: number; creativeId: number }[];
  /** The case's zone, when it has one. */
  subid: string | undefined;
}

async function build(f: OpenRtbFixture): Promise<Built> {
  const adv = await world.advertiser(100_000);
  const audiences: number[] = [];
  for (const a of f.audiences) {
    const made = await call<{ id: number }>(fx.app, 'POST', '/api/adv/audiences', { token: adv.token, json: a });
    if (made.status !== 201) throw new Error(`audience: ${JSON.stringify(made.body)}`);
    audiences.push(made.body.id);
  }
  const named = (v: unknown): unknown =>
    Array.isArray(v) ? (v as unknown[]).map((x) => (typeof x === 'string' ? audiences[Number(x.slice(9))] : x)) : v;
  const campaigns: Built['campaigns'] = [];
  for (const c of f.campaigns) {
    const fields = { ...c.campaign };
    for (const k of ['audiences_include', 'audiences_exclude']) if (k in fields) fields[k] = named(fields[k]);
    const made = await world.campaign(adv, fields, c.creative);
    campaigns.push({ id: made.campaign.id, creativeId: made.creativeId });
  }
  const subid = f.zone ? (await world.zone(f.zone)).subid : undefined;
  if (subid) await eventually(() => engine.engine.mirror.index?.zones.get(subid)?.serving === true);
  const redis = fx.app.svc.redis;
  const hold = `e:${engine.engine.id}`;
  // Serving needs the index and a budget slice of the campaign and of its advertiser (reserved ahead of traffic).
  await eventually(async () => {
    const index = engine.engine.mirror.index;
    if (!campaigns.every((c) => index?.campaigns.get(c.id)?.status === 'active')) return false;
    for (const c of campaigns)
      if (!(Number(await redis.hget(campaignPoolKey(c.id, budgetDay(Date.now())), hold)) > 0)) return false;
    return campaigns.length === 0 || Number(await redis.hget(advertiserHoldKey(adv.id), hold)) > 0;
  });
  return { advertiserToken: adv.token, campaigns, subid };
}

async function tearDown(built: Built): Promise<void> {
  for (const c of built.campaigns)
    await call(fx.app, 'POST', `/api/adv/campaigns/${c.id}/pause`, { token: built.advertiserToken });
  await eventually(() =>
    built.campaigns.every((c) => engine.engine.mirror.index?.campaigns.get(c.id)?.status !== 'active'),
  );
}

async function noBidReasons(auctionId: string): Promise<Record<string, string>> {
  const reasons: Record<string, string> = {};
  for (const e of await streamedEvents(fx.app.svc.redis, engine))
    if (e.type === 'nobid' && e.auction_id === auctionId && e.imp_id) reasons[e.imp_id] = e.reason ?? '';
  return reasons;
}

/** The request with each imp's `tagid` "$zone" naming the case's zone. */
function withZone(request: Record<string, unknown>, subid: string | undefined): Record<string, unknown> {
  const imps = request.imp as Record<string, unknown>[] | undefined;
  if (!subid || !Array.isArray(imps)) return request;
  return { ...request, imp: imps.map((imp) => (imp.tagid === '$zone' ? { ...imp, tagid: subid } : imp)) };
}

/** OpenRTB 2.6 `bid.mtype` of each markup, sent to 2.5 and 2.6 partners alike. */
const MTYPE = { banner: 1, vast: 2, native: 4 } as const;

const MARKUP = {
  banner: /^<a href="[^"]+\/c\/[^"]+" target="_blank"/,
  native: /^\{"native":/,
  vast: /^<\?xml[^>]*\?><VAST version="[234]\.0"/,
};
const VAST_VERSION_OF_PROTOCOL = { 2: '2.0', 3: '3.0', 7: '4.0' } as const;

describe.each(cases)('OpenRTB case $name', ({ fixture: f }) => {
  it(f.description, async () => {
    const built = await build(f);
    try {
      const id = `case-${process.pid}-${++run}`;
      const body = f.rawBody ?? withZone({ ...f.request, id }, built.subid);
      const r = await postBid(engine.base, body, f.headers);
      expect(r.status).toBe(f.expect.status);
      const want = f.expect;
      // Answered in the version the partner spoke; no header (or an empty one) is 2.5.
      if (want.status === 200 || want.status === 204)
        expect(r.headers.get('x-openrtb-version')).toBe(f.headers['x-openrtb-version'] || '2.5');
      if (want.status === 200) {
        const res = r.body as unknown as BidResponse;
        expect(res).toMatchObject({ id, cur: 'USD', seatbid: [{ seat: 'adnet' }] });
        const bids = res.seatbid[0]?.bid ?? [];
        expect(bids).toHaveLength(want.bids.length);
        for (const w of want.bids) {
          const bid = bids.find((b) => b.impid === w.impid);
          const c = built.campaigns[w.campaign];
          expect(bid, `bid for imp ${w.impid}`).toBeDefined();
          expect(bid).toMatchObject({ cid: String(c?.id), crid: String(c?.creativeId), price: w.price });
          if (w.w !== undefined) expect(bid?.w).toBe(w.w);
          if (w.h !== undefined) expect(bid?.h).toBe(w.h);
          if (w.adomain) expect(bid?.adomain).toEqual(w.adomain);
          expect(bid?.adm).toMatch(MARKUP[w.markup]);
          expect(bid?.mtype).toBe(MTYPE[w.markup]);
          // Every markup sends clicks through our tracker; VAST also carries our impression pixel.
          if (w.markup === 'native')
            expect((JSON.parse(bid?.adm ?? '{}') as { native: { link: { url: string } } }).native.link.url).toContain(
              '/c/',
            );
          if (w.nativeAssetIds) {
            expect(
              (JSON.parse(bid?.adm ?? '{}') as { native: { assets: { id: number }[] } }).native.assets.map((a) => a.id),
            ).toEqual(w.nativeAssetIds);
          }
          if (w.markup === 'vast')
            expect(bid?.adm).toMatch(/<Impression id="imp"><!\[CDATA\[[^\]]+\/openrtb\/imptracker\//);
          if (w.protocol !== undefined) {
            expect(bid?.protocol).toBe(w.protocol);
            expect(bid?.adm).toContain(`<VAST version="${VAST_VERSION_OF_PROTOCOL[w.protocol]}"`);
          }
          expect(bid?.nurl).toMatch(/\/openrtb\/win\/[^?/]+\?price=\$\{AUCTION_PRICE\}$/);
        }
      } else if (want.status === 204) {
        expect(r.body).toBe('');
        expect(await noBidReasons(id)).toEqual(want.nobid);
      } else {
        const code = want.status === 400 ? 'bad_request' : 'payload_too_large';
        expect(r.body).toMatchObject({ code, error: expect.stringMatching(/.{4,}/) });
        if (want.status === 400 && want.error) expect((r.body as { error: string }).error).toContain(want.error);
      }
    } finally {
      await tearDown(built);
    }
  });
});

it('finds its cases', () => {
  expect(cases.filter((c) => c.name.startsWith('exemplary/')).length).toBeGreaterThan(3);
  expect(cases.filter((c) => c.name.startsWith('supplemental/')).length).toBeGreaterThan(10);
});
