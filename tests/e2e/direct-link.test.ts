import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, useTestApp } from '@adnet/test-support/admin';
import type { Account } from '@adnet/test-support/admin';
import { eventually, startEngine, streamedEvents } from '@adnet/test-support/engine';
import type { TestEngine } from '@adnet/test-support/engine';
import { World } from '@adnet/test-support/world';

// A direct-link zone's URL, /go/<subid> (issue 39 item 3): each visit runs the zone's auction among pop
// campaigns and redirects to the winner's landing, counted and charged once per visitor within the cap.
const fx = useTestApp();
let engine: TestEngine;
let world: World;
let adv: Account;
let pub: Account;
let zone: { id: number; subid: string };
let campaignId = 0;
const FALLBACK = 'https://fallback.example/offers';
const ua = (n: number) =>
  `Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/125.0.${n}.0 Safari/537.36`;
const visit = (subid: string, userAgent: string, headers: Record<string, string> = {}) =>
  fetch(`${engine.base}/go/${subid}`, {
    redirect: 'manual',
    headers: { 'user-agent': userAgent, referer: 'https://social.example/post/1', ...headers },
  });
const mine = async () =>
  (await streamedEvents(fx.app.svc.redis, engine)).filter((e) => e.zone_id === zone.id || e.campaign_id === campaignId);
const spentCents = async () =>
  Number(
    (await call<{ total_spent_cents: number }>(fx.app, 'GET', `/api/adv/campaigns/${campaignId}`, { token: adv.token }))
      .body.total_spent_cents,
  );

beforeAll(async () => {
  world = await World.create(fx.app);
  adv = await world.advertiser(100_000);
  const { campaign } = await world.campaign(adv, { format: 'popunder', bid_usd: 8 });
  campaignId = campaign.id;
  const site = await world.site();
  pub = site.publisher;
  zone = await world.zone(
    // The floor sets the price of a pop with no rival: $5 per thousand, half a cent each.
    { format: 'direct_link', pop_freq_cap_hours: 1, floor_cpm_usd: 5, fallback: { type: 'url', value: FALLBACK } },
    site,
  );
  engine = await startEngine(fx.redis.url);
  await eventually(() => engine.engine.mirror.index?.zones.get(zone.subid)?.serving === true);
});
afterAll(async () => {
  await engine?.stop();
});

describe('GET /go/<subid>', () => {
  it("redirects a visitor to the pop campaign's landing with its click id, counted and charged once", async () => {
    const res = await visit(zone.subid, ua(1));
    expect(res.status).toBe(302);
    const location = res.headers.get('location') ?? '';
    const clickId = /^https:\/\/shop\.example\.com\/p\?c=([0-9a-f-]{36})$/.exec(location)?.[1];
    expect(clickId).toBeDefined();
    await eventually(async () => (await mine()).some((e) => e.type === 'click'));
    const events = (await mine()).filter((e) => e.type !== 'nobid');
    expect(events.map((e) => [e.type, e.integration]).sort()).toEqual([
      ['click', 'direct_link'],
      ['impression', 'direct_link'],
    ]);
    const impression = events.find((e) => e.type === 'impression');
    // Half a cent in nano-dollars.
    expect(impression).toMatchObject({ zone_id: zone.id, campaign_id: campaignId, charge_nano: 5_000_000 });
    expect(events.find((e) => e.type === 'click')).toMatchObject({ click_id: clickId, invalid: false });
  });

  it("sends the same visitor to the zone's fallback within the cap, however many visits race; nothing more is charged", async () => {
    const before = (await mine()).filter((e) => e.type === 'impression').length;
    const again = await Promise.all(Array.from({ length: 8 }, () => visit(zone.subid, ua(1))));
    expect(again.map((r) => [r.status, r.headers.get('location')])).toEqual(Array(8).fill([302, FALLBACK]));
    // Eight new visitors at once: one pop each.
    const others = await Promise.all(Array.from({ length: 8 }, (_, i) => visit(zone.subid, ua(100 + i))));
    expect(others.every((r) => r.headers.get('location')?.startsWith('https://shop.example.com/'))).toBe(true);
    await eventually(async () => (await mine()).filter((e) => e.type === 'impression').length === before + 8);
    await new Promise((r) => setTimeout(r, 200));
    expect((await mine()).filter((e) => e.type === 'impression')).toHaveLength(before + 8);
    const capped = (await mine()).filter((e) => e.type === 'nobid' && e.reason === 'frequency_cap');
    expect(capped).toHaveLength(8);
  });

  it("charges nothing for a bot or a script, and gives it nothing, not even the publisher's fallback", async () => {
    const spent = await spentCents();
    for (const bot of ['curl/8.5.0', 'python-requests/2.31', '', 'Mozilla/5.0 (compatible; Googlebot/2.1)']) {
      const res = await visit(zone.subid, bot);
      expect([res.status, res.headers.get('location')]).toEqual([204, null]);
    }
    await new Promise((r) => setTimeout(r, 200));
    expect(await spentCents()).toBe(spent);
    expect((await mine()).filter((e) => e.type === 'nobid' && e.reason === 'bot_traffic').length).toBe(4);
  });

  it('answers 204 (never a 5xx) for an unknown subid, a zone of another format, a paused zone, or junk', async () => {
    const native = await world.zone({ format: 'native' });
    const paused = await world.zone({ format: 'direct_link' });
    expect(
      (await call(fx.app, 'POST', `/api/pub/zones/${paused.id}/pause`, { token: paused.publisher.token })).status,
    ).toBe(200);
    await eventually(() => engine.engine.mirror.index?.zones.get(paused.subid)?.serving === false);
    for (const subid of ['nosuchzone', native.subid, paused.subid, '..%2F..%2Fetc', 'x'.repeat(200), '%00'])
      expect((await visit(subid, ua(7))).status, subid).toBe(204);
    // Nor is a pop zone a widget's: its ad is never drawn in a page.
    expect((await fetch(`${engine.base}/imp?z=${zone.subid}&fp=x`, { headers: { 'user-agent': ua(8) } })).status).toBe(
      204,
    );
  });
});

describe('pop zones and creatives: bad input', () => {
  it('names each field that does not fit the format', async () => {
    const site = await world.site();
    const bad = async (json: Record<string, unknown>) =>
      call<{ errors: Record<string, string> }>(fx.app, 'POST', '/api/pub/zones', {
        token: site.publisher.token,
        json: { site_id: site.id, name: 'z', ...json },
      });
    expect(await bad({ format: 'direct_link', pop_freq_cap_hours: 0, pop_trigger: 'any_click' })).toMatchObject({
      status: 400,
      body: { errors: { pop_freq_cap_hours: 'must be at least 1', pop_trigger: 'is only for popunder zones' } },
    });
    expect(await bad({ format: 'popunder', pop_freq_cap_hours: 169, pop_new_tab: 'yes' })).toMatchObject({
      status: 400,
      body: { errors: { pop_freq_cap_hours: 'must be at most 168', pop_new_tab: 'must be true or false' } },
    });
    expect(await bad({ format: 'native', pop_freq_cap_hours: 2 })).toMatchObject({
      status: 400,
      body: { errors: { pop_freq_cap_hours: 'is only for popunder and direct_link zones' } },
    });
    const ok = await call<Record<string, unknown>>(fx.app, 'POST', '/api/pub/zones', {
      token: site.publisher.token,
      json: { site_id: site.id, name: 'pops', format: 'popunder' },
    });
    expect(ok.body).toMatchObject({ pop_freq_cap_hours: 24, pop_trigger: 'first_click', pop_new_tab: true });
    expect(ok.body).not.toHaveProperty('go_url');
    const link = await call<Record<string, unknown>>(fx.app, 'GET', `/api/pub/zones/${zone.id}`, { token: pub.token });
    expect(link.body).toMatchObject({
      pop_freq_cap_hours: 1,
      pop_trigger: null,
      go_url: expect.stringMatching(/\/go\//),
    });
  });

  it('refuses an image or a body on a popunder creative: the ad is its landing page', async () => {
    await expect(world.creative(adv, campaignId, 'banner')).rejects.toThrow(/is not accepted for popunder creatives/);
    await expect(world.creative(adv, campaignId, 'popunder', { body: 'Buy' })).rejects.toThrow(
      /body.*is not accepted for popunder creatives/,
    );
  });
});
