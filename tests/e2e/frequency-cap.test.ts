import type { BidResponse } from '@adnet/schemas/openrtb';
import { frequencyKey } from '@adnet/schemas/redis-keys';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '@adnet/test-support/admin';
import { eventually, postBid, startEngine, streamedEvents } from '@adnet/test-support/engine';
import type { TestEngine } from '@adnet/test-support/engine';
import { World, bannerRequest } from '@adnet/test-support/world';
import { userKeyOf } from '@adnet/engine/frequency-caps';

// Frequency caps through two real engines on one Redis: a capped user stops getting the campaign after
// its N impressions, whichever engine serves it and whichever counts the ad, within the stated bound
// (at most N + E - 1 with E engines, docs/delivery.md#frequency-caps), while other users still get it.

const fx = useTestApp();
const N = 3;
const E = 2;
let engines: TestEngine[] = [];
let zone = '';
let nativeCampaign = 0;
let bannerCampaign = 0;
const UA = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/125.0 Safari/537.36';

beforeAll(async () => {
  const world = await World.create(fx.app);
  await world.partner();
  const adv = await world.advertiser(1_000_000);
  const cap = { impressions: N, period_hours: 1 };
  nativeCampaign = (await world.campaign(adv, { format: 'native', bid_usd: 2, frequency_cap: cap })).campaign.id;
  bannerCampaign = (
    await world.campaign(adv, { format: 'banner', bid_usd: 2, frequency_cap: { impressions: 2, period_hours: 1 } })
  ).campaign.id;
  zone = (await world.zone({ format: 'native' })).subid;
  engines = await Promise.all([startEngine(fx.redis.url), startEngine(fx.redis.url)]);
  for (const e of engines)
    await eventually(
      () => e.engine.mirror.index?.zones.get(zone)?.serving === true && e.engine.mirror.index.candidateCount === 2,
    );
}, 60_000);
afterAll(async () => {
  await Promise.all(engines.map((e) => e.stop()));
});

let request = 0;
/** One ad request of `user` at engine `at`; a served ad is rendered, its beacon sent to engine `beaconAt`. */
async function visit(user: string, at: number, beaconAt = at): Promise<boolean> {
  const headers = { 'user-agent': UA };
  const r = await fetch(`${(engines[at] as TestEngine).base}/imp?z=${zone}&fp=fp-${++request}&u=${user}`, { headers });
  if (r.status !== 200) return false;
  const { beacon_url } = (await r.json()) as { beacon_url: string };
  const beacon = await fetch(beacon_url.replace(new URL(beacon_url).origin, (engines[beaconAt] as TestEngine).base), {
    headers,
  });
  expect(beacon.status).toBe(200);
  return true;
}

const sharedCount = async (id: string, campaign: number) =>
  Number((await fx.app.svc.redis.hget(frequencyKey(userKeyOf(id)), `n:${campaign}`)) ?? 0);
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('frequency cap on widget traffic (first-party id)', () => {
  it('stops a user after N ads across two engines, each ad counted by either; another user still gets it', async () => {
    const alice = 'alice-first-party-id-01';
    let served = 0;
    for (let i = 0; i < 24; i++) {
      // Alternate the serving engine; the beacon goes to the same engine or the other one.
      if (await visit(alice, i % E, (i + (i >> 1)) % E)) served++;
      await pause(40);
    }
    expect(served).toBeGreaterThanOrEqual(N);
    expect(served).toBeLessThanOrEqual(N + E - 1);
    expect(await sharedCount(`w:${alice}`, nativeCampaign)).toBe(served);
    // Past the refresh, every engine knows: nothing more, and the reason is the cap.
    await pause(1_100);
    for (let i = 0; i < 6; i++) expect(await visit(alice, i % E)).toBe(false);
    const events = await Promise.all(engines.map((e) => streamedEvents(fx.app.svc.redis, e)));
    expect(
      events.flat().filter((e) => e.type === 'nobid' && e.reason === 'frequency_cap').length,
    ).toBeGreaterThanOrEqual(6);
    // Another browser on the same network is another user.
    expect(await visit('bob-first-party-id-0001', 0)).toBe(true);
    expect(await visit('bob-first-party-id-0001', 1)).toBe(true);
    // The counts expire with the period.
    const ttl = await fx.app.svc.redis.pttl(frequencyKey(userKeyOf(`w:${alice}`)));
    expect(ttl).toBeGreaterThan(3_500_000);
    expect(ttl).toBeLessThanOrEqual(3_600_000);
  });

  it('holds the bound when the user hits both engines at once, round after round', async () => {
    const carol = 'carol-first-party-id-01';
    let served = 0;
    for (let round = 0; round < 6; round++) {
      const burst = await Promise.all(Array.from({ length: 8 }, (_, k) => visit(carol, k % E, (k + round) % E)));
      served += burst.filter(Boolean).length;
      await pause(30);
    }
    expect(served).toBeGreaterThanOrEqual(N);
    expect(served).toBeLessThanOrEqual(N + E - 1);
    expect(await sharedCount(`w:${carol}`, nativeCampaign)).toBe(served);
  });

  it('cannot cap a browser that sends no id', async () => {
    let served = 0;
    for (let i = 0; i < N + 3; i++) {
      const r = await fetch(`${(engines[i % E] as TestEngine).base}/imp?z=${zone}&fp=anon-${i}`, {
        headers: { 'user-agent': UA },
      });
      if (r.status === 200) served++;
    }
    expect(served).toBe(N + 3);
  });
});

describe('frequency cap on OpenRTB traffic (user.id)', () => {
  const bid = async (at: number, over: Record<string, unknown>) => {
    const r = await postBid((engines[at] as TestEngine).base, bannerRequest(over));
    return r.status === 200 ? (r.body as unknown as BidResponse).seatbid[0]?.bid[0] : undefined;
  };

  it("caps a user by the partner's user.id across engines, win notices counted by either, and bids for others", async () => {
    let won = 0;
    for (let i = 0; i < 16; i++) {
      const b = await bid(i % E, { user: { id: 'exchange-user-7' } });
      if (b) {
        const notice = b.nurl.replace('${AUCTION_PRICE}', '1.5');
        const win = await fetch(notice.replace(new URL(notice).origin, (engines[(i >> 1) % E] as TestEngine).base));
        if (((await win.json()) as { counted: boolean }).counted) won++;
      }
      await pause(40);
    }
    expect(won).toBeGreaterThanOrEqual(2);
    expect(won).toBeLessThanOrEqual(2 + E - 1);
    expect(await sharedCount('p1:exchange-user-7', bannerCampaign)).toBe(won);
    await pause(1_100);
    expect(await bid(0, { user: { id: 'exchange-user-7' } })).toBeUndefined();
    expect(await bid(1, { user: { id: 'exchange-user-7' } })).toBeUndefined();
    expect(await bid(0, { user: { id: 'exchange-user-8' } })).toBeDefined();
  });

  it('falls back to device.ifa, and a request without either is never capped', async () => {
    const ifaOnly = (ifa?: string) => ({ user: undefined, device: { ...(bannerRequest().device as object), ifa } });
    for (let i = 0; i < 2; i++) {
      const b = await bid(0, ifaOnly('6D92078A-8246-4BA4-AE5B-76104861E7DC'));
      expect(b).toBeDefined();
      await fetch((b?.nurl ?? '').replace('${AUCTION_PRICE}', '1'));
      await pause(40);
    }
    await pause(1_100);
    expect(await bid(0, ifaOnly('6D92078A-8246-4BA4-AE5B-76104861E7DC'))).toBeUndefined();
    for (let i = 0; i < 4; i++) {
      const b = await bid(i % E, ifaOnly(undefined));
      expect(b).toBeDefined();
      await fetch((b?.nurl ?? '').replace('${AUCTION_PRICE}', '1'));
    }
  });
});
