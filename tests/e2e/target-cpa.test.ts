import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, useTestApp } from '@adnet/test-support/admin';
import type { Account } from '@adnet/test-support/admin';
import { eventually, startEngine, streamedEvents } from '@adnet/test-support/engine';
import type { TestEngine } from '@adnet/test-support/engine';
import { World } from '@adnet/test-support/world';
import { postConversion } from '@adnet/test-support/postback';
import type { ZoneBidsAnswer } from '@adnet/schemas/target-cpa';

// Target CPA through the real pieces: the admin (REST, the postback door and its controller on its timer, as
// part `target-cpa`), a real engine, one Redis. A CPC campaign ($1 a click, target $0.50, test budget $2) gets
// real clicks on two zones: zone A's two clicks spend its test budget with no conversion and A is excluded
// (the engine then drops the campaign there, no-bid `cpa_excluded`); zone B converts 10 times through signed
// postbacks and is optimised: its bid is lowered, and its next click is charged the lowered bid.

const fx = useTestApp({ TARGET_CPA_PASS_MS: '200' }, { parts: ['target-cpa'] });
let engine: TestEngine;
let world: World;
let adv: Account;
let secret = '';
let campaignId = 0;
const zones: Record<'a' | 'b', { id: number; subid: string }> = {
  a: { id: 0, subid: '' },
  b: { id: 0, subid: '' },
};
let siteDomain = '';
const UA =
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_0) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Safari/605.1.15';

async function imp(subid: string) {
  const fp = `fp-${Math.random().toString(36).slice(2)}`;
  const res = await fetch(`${engine.base}/imp?z=${subid}&fp=${fp}`, {
    headers: { 'user-agent': UA, 'x-country': 'FR' },
  });
  const body = res.status === 200 ? ((await res.json()) as { beacon_url: string; click_url: string }) : undefined;
  return { status: res.status, body, fp };
}

/** A real click through the engine (/imp, the render beacon, /c); the click id the landing page received. */
async function click(subid: string): Promise<string> {
  const served = await imp(subid);
  if (!served.body) throw new Error(`no ad on ${subid}: ${served.status}`);
  expect((await fetch(served.body.beacon_url, { headers: { 'user-agent': UA } })).status).toBe(200);
  const res = await fetch(`${served.body.click_url}?ttc=2000&x=5&y=5&focus=1&fp=${served.fp}`, {
    redirect: 'manual',
    headers: { 'user-agent': UA },
  });
  return /c=([0-9a-f-]{36})/.exec(res.headers.get('location') ?? '')?.[1] ?? '';
}

const approve = (clickId: string, txid: string): Promise<number> =>
  postConversion(fx.app.base, secret, { click_id: clickId, payout: '100', status: 'approved', txid });

const zoneBids = async () =>
  (await call<ZoneBidsAnswer>(fx.app, 'GET', `/api/adv/campaigns/${campaignId}/zone-bids`, { token: adv.token })).body;
const row = (answer: ZoneBidsAnswer, zoneId: number) => answer.zones.find((z) => z.zone_id === zoneId);

beforeAll(async () => {
  world = await World.create(fx.app);
  adv = await world.advertiser(100_000);
  secret = String((await call(fx.app, 'GET', '/api/adv/profile', { token: adv.token })).body.postback_secret);
  const site = await world.site();
  siteDomain = site.domain;
  zones.a = await world.zone({ format: 'native' }, site);
  zones.b = await world.zone({ format: 'native' }, site);
  const landing = 'https://shop.example.com/p?c={click_id}';
  campaignId = (
    await world.campaign(
      adv,
      { format: 'native', bid_type: 'cpc', bid_usd: 1, target_cpa_usd: 0.5, cpa_test_budget_usd: 2 },
      { landing_url: landing },
    )
  ).campaign.id;
  engine = await startEngine(fx.redis.url);
  await eventually(() => engine.engine.mirror.index?.zones.get(zones.b.subid)?.serving === true);
  await eventually(() => engine.engine.mirror.index?.candidateCount === 1);
  await new Promise((r) => setTimeout(r, 300));
}, 60_000);
afterAll(async () => {
  await engine?.stop();
});

describe('target CPA fields', () => {
  it('400 naming target_cpa_usd for 0 or above 10 000, and a test budget without a target', async () => {
    const base = {
      name: 'T',
      vertical: 'ecommerce',
      format: 'banner',
      bid_type: 'cpm',
      bid_usd: 1,
      daily_budget_usd: 10,
    };
    for (const bad of [0, -1, 10_000.01, 'x']) {
      const r = await call(fx.app, 'POST', '/api/adv/campaigns', {
        token: adv.token,
        json: { ...base, target_cpa_usd: bad },
      });
      expect(r.status).toBe(400);
      expect(Object.keys(r.body.errors as object)).toEqual(['target_cpa_usd']);
    }
    const lone = await call(fx.app, 'POST', '/api/adv/campaigns', {
      token: adv.token,
      json: { ...base, cpa_test_budget_usd: 5 },
    });
    expect(lone.status).toBe(400);
    expect(Object.keys(lone.body.errors as object)).toEqual(['cpa_test_budget_usd']);
    const ok = await call<{ id: number; target_cpa_cents: number; cpa_test_budget_cents: number }>(
      fx.app,
      'POST',
      '/api/adv/campaigns',
      { token: adv.token, json: { ...base, target_cpa_usd: 10_000 } },
    );
    expect(ok.status).toBe(201);
    expect(ok.body).toMatchObject({ target_cpa_cents: 1_000_000, cpa_test_budget_cents: 2_000_000 });
    const off = await call(fx.app, 'PATCH', `/api/adv/campaigns/${ok.body.id}`, {
      token: adv.token,
      json: { target_cpa_usd: null },
    });
    expect(off.body).toMatchObject({ target_cpa_cents: null, cpa_test_budget_cents: null });
    const other = await world.advertiser(0);
    const denied = await call(fx.app, 'GET', `/api/adv/campaigns/${campaignId}/zone-bids`, { token: other.token });
    expect(denied.status).toBe(403);
  });
});

describe('zone bids', () => {
  it('excludes a zone that spent its test budget without converting; optimises a converting zone', async () => {
    await click(zones.a.subid);
    await click(zones.a.subid);
    // 10 clicks and 10 approved conversions on B: $10 spent, eCPA $1.00 against a $0.50 target. Each conversion
    // follows its click's spend into the shared counts (the engine adds its spend every second), as a tracker's would.
    let last = '';
    for (let i = 1; i <= 10; i++) {
      last = await click(zones.b.subid);
      await eventually(async () => row(await zoneBids(), zones.b.id)?.spend_cents === i * 100);
      expect(await approve(last, `tx-${i}`)).toBe(200);
    }
    // The tracker sends the last one again, four times at once: it counts once.
    expect(await Promise.all([1, 2, 3, 4].map(() => approve(last, 'tx-10')))).toEqual([200, 200, 200, 200]);

    await eventually(async () => {
      const answer = await zoneBids();
      return row(answer, zones.a.id)?.state === 'excluded' && row(answer, zones.b.id)?.state === 'optimised';
    }, 10_000);
    const answer = await zoneBids();
    expect(answer).toMatchObject({ target_cpa_cents: 50, cpa_test_budget_cents: 200, conversions: 10 });
    expect(row(answer, zones.a.id)).toMatchObject({
      site_domain: siteDomain,
      state: 'excluded',
      bid_micro_cents: 0,
      spend_cents: 200,
      conversions: 0,
      ecpa_cents: null,
    });
    const b = row(answer, zones.b.id);
    expect(b).toMatchObject({ state: 'optimised', spend_cents: 1000, conversions: 10, ecpa_cents: 100 });
    // One bounded step down from $1.00: x 1/1.25.
    expect(b?.bid_micro_cents).toBe(80_000);
    expect(b?.reason).toContain('lowered');
  });

  it('the engine drops the campaign on the excluded zone and charges the zone bid on the optimised one', async () => {
    await eventually(() => {
      const part = engine.engine.mirror.index?.slots.values().next().value?.[0]?.part;
      return part?.cpaExcluded?.has(zones.a.subid) === true;
    });
    expect((await imp(zones.a.subid)).status).toBe(204);
    await eventually(async () =>
      (await streamedEvents(fx.app.svc.redis, engine)).some(
        (e) => e.type === 'nobid' && e.zone_id === zones.a.id && e.reason === 'cpa_excluded',
      ),
    );
    await click(zones.b.subid);
    await eventually(async () =>
      (await streamedEvents(fx.app.svc.redis, engine)).some(
        (e) => e.type === 'click' && e.zone_id === zones.b.id && e.charge_nano === 800_000_000,
      ),
    );
  });
});
