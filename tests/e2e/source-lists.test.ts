import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '@adnet/test-support/admin';
import { eventually, postBid, startEngine, streamedEvents } from '@adnet/test-support/engine';
import type { TestEngine } from '@adnet/test-support/engine';
import { World, bannerRequest } from '@adnet/test-support/world';
import { decodeTicket } from '@adnet/engine/signed-token';

// Advertisers' source lists and bid adjustments through a real engine: an excluded zone gets no ad of the
// campaign while another zone does, an include list serves only on its zones (and not on a partner's
// traffic, which names no source of ours), and a x2 zone adjustment wins an auction it would otherwise
// lose, its CPC click charged the adjusted bid from the signed ticket.

const fx = useTestApp();
let engine: TestEngine;
let world: World;
const BROWSER = {
  'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/125.0 Safari/537.36',
  'x-country': 'de',
};
const z: Record<string, { id: number; subid: string }> = {};
const ids: Record<string, number> = {};

interface ImpAnswer {
  status: number;
  body?: { creative?: { title: string }; beacon_url?: string; click_url?: string };
}
async function imp(subid: string): Promise<ImpAnswer> {
  const r = await fetch(`${engine.base}/imp?z=${subid}&fp=fp-${Math.random().toString(36).slice(2)}&s=e30`, {
    headers: BROWSER,
  });
  return { status: r.status, body: r.status === 200 ? ((await r.json()) as ImpAnswer['body']) : undefined };
}
const events = () => streamedEvents(fx.app.svc.redis, engine);

beforeAll(async () => {
  world = await World.create(fx.app);
  await world.partner();
  const site = await world.site();
  const banner = { format: 'banner', banner_width: 300, banner_height: 250 };
  for (const [name, fields] of Object.entries({
    nx: { format: 'native' },
    ny: { format: 'native' },
    p: banner,
    h: banner,
    k: banner,
  })) {
    z[name] = await world.zone(fields, site);
  }
  const adv = await world.advertiser(100_000);
  const sub = (name: string) => (z[name] as { subid: string }).subid;
  ids.excl = (
    await world.campaign(
      adv,
      { format: 'native', bid_usd: 1, sources: { mode: 'exclude', zones: [sub('nx')] } },
      { title: 'Excl' },
    )
  ).campaign.id;
  ids.incl = (
    await world.campaign(adv, { bid_usd: 5, sources: { mode: 'include', zones: [sub('p')] } }, { title: 'Incl' })
  ).campaign.id;
  // CPC banners rank at bid x 0.1% CTR x 1000: $0.30 -> $0.30 CPM, x2 on zone h -> $0.60, above the rival's $0.50.
  const landing = 'https://shop.example.com/p?c={click_id}&p={cost}';
  ids.boosted = (
    await world.campaign(
      adv,
      { bid_type: 'cpc', bid_usd: 0.3, bid_adjustments: [{ zone: sub('h'), multiplier: 2 }] },
      { title: 'Boosted', landing_url: landing },
    )
  ).campaign.id;
  ids.rival = (await world.campaign(adv, { bid_type: 'cpc', bid_usd: 0.5 }, { title: 'Rival' })).campaign.id;
  engine = await startEngine(fx.redis.url);
  await eventually(() => {
    const index = engine.engine.mirror.index;
    return (
      index?.candidateCount === 4 &&
      [...index.slots.values()].flat().filter((c) => c.sources !== null).length === 2 &&
      index.zones.get(sub('k'))?.serving === true
    );
  });
  await new Promise((r) => setTimeout(r, 300)); // first budget slices
}, 60_000);
afterAll(async () => {
  await engine?.stop();
});

describe('source lists', () => {
  it('an excluded zone gets no ad from the campaign (no-bid source_list) while another zone does', async () => {
    expect((await imp((z.nx as { subid: string }).subid)).status).toBe(204);
    expect((await imp((z.ny as { subid: string }).subid)).body?.creative?.title).toBe('Excl');
    await eventually(async () =>
      (await events()).some((e) => e.type === 'nobid' && e.zone_id === z.nx?.id && e.reason === 'source_list'),
    );
  });

  it("an include list serves only on its zones, and not on a partner's traffic", async () => {
    expect((await imp((z.p as { subid: string }).subid)).body?.creative?.title).toBe('Incl');
    // The $5 campaign would win zone k and the partner's banner; it is not on its list.
    expect((await imp((z.k as { subid: string }).subid)).body?.creative?.title).toBe('Rival');
    const bid = await postBid(engine.base, bannerRequest());
    expect(bid.status).toBe(200);
    const seatbid = (bid.body as { seatbid: { bid: { cid: string }[] }[] }).seatbid;
    expect(seatbid[0]?.bid[0]?.cid).toBe(String(ids.rival));
  });
});

describe('bid adjustments', () => {
  it('a x2 zone adjustment wins where the campaign would lose, and its CPC click is charged the adjusted bid', async () => {
    const h = (z.h as { subid: string }).subid;
    const served = await imp(h);
    expect(served.body?.creative?.title).toBe('Boosted');
    // Tampering with the link (the ticket) is refused: the price comes from the signed ticket alone.
    const url = served.body?.click_url ?? '';
    const tampered = url.replace(/\/c\/([^.]+)\./, (_m, p: string) => `/c/${p.slice(0, -2)}AA.`);
    expect(
      (await fetch(`${tampered}?ttc=1200&x=40&y=20&focus=1&fp=fp-t`, { redirect: 'manual', headers: BROWSER })).status,
    ).toBe(404);
    expect((await fetch(served.body?.beacon_url ?? '', { headers: BROWSER })).status).toBe(200);
    const click = await fetch(`${url}?ttc=1200&x=40&y=20&focus=1&fp=fp-boost`, {
      redirect: 'manual',
      headers: BROWSER,
    });
    expect(click.status).toBe(302);
    // {cost} is the click's charge: $0.30 x 2.
    expect(click.headers.get('location')).toMatch(/&p=0\.6$/);
    await eventually(async () => (await events()).some((e) => e.type === 'click' && e.campaign_id === ids.boosted));
    const charged = (await events()).filter((e) => e.type === 'click' && e.campaign_id === ids.boosted);
    expect(charged).toHaveLength(1);
    expect(charged[0]).toMatchObject({ invalid: false, charge_nano: 600_000_000 });
    // The bid the engine held and priced is the adjusted one: second price over the rival's $0.50 CPM.
    // The ticket signs both: the impression's hold at the adjusted second price (the rival's $0.50 CPM plus a cent), the click's price.
    const ticket = decodeTicket('t'.repeat(40), /\/c\/([^/]+)\//.exec(url)?.[1] ?? '');
    expect(ticket).toMatchObject({ priceMicroCents: 51_000, clickMicroCents: 60_000 });
  });

  it('without the adjustment (another zone) the same campaign loses', async () => {
    expect((await imp((z.k as { subid: string }).subid)).body?.creative?.title).toBe('Rival');
  });
});
