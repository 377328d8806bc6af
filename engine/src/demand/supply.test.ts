import type { DemandPartner } from '@adnet/schemas/demand';
import type { StoredSite, StoredZone } from '@adnet/schemas/publisher';
import { describe, expect, it } from 'vitest';
import { candidateFixture } from '../../test/fixtures/auction-fixtures.ts';
import type { Served } from '../auction/serve.ts';
import { PartnerLimiter } from '../partners/partner-limiter.ts';
import { decodeTicket, encodeTicket } from '../tracking/signed-token.ts';
import { CircuitBreaker } from './breaker.ts';
import { DemandStats } from './demand-stats.ts';
import { decodeDemandTicket } from './demand-ticket.ts';
import type { DspAnswer } from './dsp-client.ts';
import { Notifier } from './notices.ts';
import { eligiblePartners, supplyAuction } from './supply.ts';
import type { SupplyDeps } from './supply.ts';
import type { DemandWin } from './win-store.ts';

const SECRET = 's'.repeat(40);
const partner = (id: number, over: Partial<DemandPartner> = {}): DemandPartner => ({
  id,
  name: `p${id}`,
  endpoint: `https://p${id}.example/bid`,
  qps_limit: 1_000,
  timeout_ms: 150,
  formats: ['banner'],
  countries: [],
  openrtb_version: '2.5',
  status: 'active',
  created_at: '',
  updated_at: '',
  ...over,
});
const zone = {
  id: 5,
  site_id: 2,
  publisher_id: 9,
  subid: 'zone1',
  format: 'banner',
  banner_width: 300,
  banner_height: 250,
} as StoredZone;
const site = { id: 2, publisher_id: 9, domain: 'news.example', category: 'news' } as StoredSite;

/** Partners answering from a table: a price bids (with notices), else the given answer. */
function world(
  answers: Record<number, number | DspAnswer>,
  budgetRoom = true,
  admOf: (id: number) => string = () => `<i>\${AUCTION_PRICE}</i>`,
  adomainOf: (id: number) => string[] | undefined = () => undefined,
) {
  const notices: string[] = [];
  const bodies: string[] = [];
  const versions: string[] = [];
  const given: number[] = [];
  const wins = new Map<string, DemandWin>();
  const deps: SupplyDeps = {
    client: {
      postBid: ({ id }, body, _timeout, version) => {
        bodies.push(body);
        versions.push(version);
        const a = answers[id];
        const req = JSON.parse(body) as { id: string };
        if (typeof a !== 'number') return Promise.resolve(a ?? { kind: 'nobid' });
        const bid = {
          id: `b${id}`,
          impid: '1',
          price: a,
          adm: admOf(id),
          nurl: `https://p${id}.example/w?p=\${AUCTION_PRICE}`,
          lurl: `https://p${id}.example/l?r=\${AUCTION_LOSS}`,
          ...(adomainOf(id) ? { adomain: adomainOf(id) } : {}),
        };
        return Promise.resolve({
          kind: 'bid',
          body: JSON.stringify({ id: req.id, seatbid: [{ seat: 'x', bid: [bid] }] }),
        });
      },
    },
    breaker: new CircuitBreaker(2, 1_000),
    limiter: new PartnerLimiter(1),
    stats: new DemandStats(),
    notifier: new Notifier(
      { claim: () => Promise.resolve(true), finish: () => Promise.resolve() },
      { notify: (u) => (notices.push(u), Promise.resolve(true)) },
    ),
    wins: { save: (id, w) => Promise.resolve(void wins.set(id, w)), load: (id) => Promise.resolve(wins.get(id)) },
    secret: SECRET,
    baseUrl: 'https://ads.example',
    sellerDomain: 'adnet.example',
    budget: { tryTake: () => budgetRoom, giveBack: (_c, p) => void given.push(p) },
    now: () => 0,
  };
  return { deps, notices, given, wins, bodies, versions };
}

function ownServed(ecpmUsd: number, priceUsd: number): Served {
  const c = candidateFixture({ bid_micro_cents: ecpmUsd * 100_000 });
  const priceMicroCents = priceUsd * 100_000;
  const ticket = encodeTicket(SECRET, {
    ...{
      bidId: 'own',
      campaignId: c.campaignId,
      advertiserId: c.advertiserId,
      creativeId: c.creativeId,
      priceMicroCents,
      issuedAt: 1,
      engine: 'e',
    },
    ...{
      partnerId: 0,
      country: 'us',
      device: '',
      publisherId: 9,
      siteId: 2,
      zoneId: 5,
      surface: 'widget',
      ipPrefix: '',
      uaHash: '',
      test: false,
      os: '',
      browser: '',
      user: '',
      source: '',
      clickMicroCents: 0,
      format: 'banner',
      integration: 'widget',
    },
  });
  return { won: true, candidate: c, priceMicroCents, bidId: 'own', ticket, dealId: undefined };
}

const input = (partners: DemandPartner[], own: Served | { won: false; reason: 'no_candidates' }) => ({
  partners,
  own,
  startedAt: 0,
  auctionTimeoutMs: 200,
  surface: 'widget' as const,
  imp: {
    zone,
    site,
    floorMicroCents: 50_000,
    ua: 'ua',
    ip: '203.0.113.9',
    country: 'us',
    device: 'desktop',
    os: undefined,
    language: 'en',
    page: undefined,
    userKey: 'k',
  },
});
const settle = () => new Promise((r) => setTimeout(r, 5));

describe('supplyAuction', () => {
  it('a partner beating our campaign wins at second price, our hold goes back, notices carry the price and loss reason', async () => {
    const w = world({ 1: 3, 2: 2.5 });
    const out = await supplyAuction(w.deps, input([partner(1), partner(2)], ownServed(2, 1)));
    expect(out).toMatchObject({ kind: 'partner', partnerId: 1, adm: '<i>2.51</i>', priceMicroCents: 251_000 });
    expect(w.given).toEqual([100_000]);
    if (out.kind === 'partner')
      expect(decodeDemandTicket(SECRET, out.token)).toMatchObject({
        partnerId: 1,
        priceMicroCents: 251_000,
        zoneId: 5,
        publisherId: 9,
      });
    await settle();
    expect(w.notices.sort()).toEqual(['https://p1.example/w?p=2.51', 'https://p2.example/l?r=102']);
    expect([w.deps.stats.peek(1, 'wins'), w.deps.stats.peek(2, 'bids'), w.deps.stats.peek(2, 'wins')]).toEqual([
      1, 1, 0,
    ]);
  });

  it('our campaign keeps the impression, its price raised over the best partner and its ticket signed again', async () => {
    const w = world({ 1: 2.5 });
    const out = await supplyAuction(w.deps, input([partner(1)], ownServed(4, 1)));
    expect(out.kind).toBe('own');
    if (out.kind === 'own') {
      expect(out.served.priceMicroCents).toBe(251_000);
      expect(decodeTicket(SECRET, out.served.ticket)?.priceMicroCents).toBe(251_000);
    }
    await settle();
    expect(w.notices).toEqual([]);
  });

  it('when our budget cannot pay the raise, the partner wins', async () => {
    const w = world({ 1: 2.5 }, false);
    const out = await supplyAuction(w.deps, input([partner(1)], ownServed(4, 1)));
    expect(out).toMatchObject({ kind: 'partner', partnerId: 1, priceMicroCents: 50_000 });
    expect(w.given).toEqual([100_000]);
  });

  it("sends the publisher's blocked domains as badv and discards a bid declaring one of them (or a subdomain)", async () => {
    const w = world({ 1: 3, 2: 2.5 }, true, undefined, (id) => (id === 1 ? ['WWW.Casino.Example'] : ['shop.example']));
    const out = await supplyAuction(w.deps, {
      ...input([partner(1), partner(2)], { won: false, reason: 'no_candidates' }),
      blockedDomains: new Set(['casino.example']),
    });
    expect(out).toMatchObject({ kind: 'partner', partnerId: 2 });
    expect(w.deps.stats.peek(1, 'bad_landing')).toBe(1);
    expect(w.bodies.map((b) => (JSON.parse(b) as { badv?: string[] }).badv)).toEqual([
      ['casino.example'],
      ['casino.example'],
    ]);
    const open = world({ 1: 3 });
    await supplyAuction(open.deps, input([partner(1)], { won: false, reason: 'no_candidates' }));
    expect(JSON.parse(open.bodies[0] ?? '{}')).not.toHaveProperty('badv');
  });

  it('refuses a video answer in a VAST version newer than the player asked for, rather than wrap it', async () => {
    const vast = (v: string) => `<VAST version="${v}"><Ad id="1"><InLine></InLine></Ad></VAST>`;
    const w = world({ 1: 3, 2: 2.5, 3: 2 }, true, (id) => vast(id === 1 ? '4.0' : id === 2 ? '3.0' : '2.0'));
    const asked = { ...input([partner(1), partner(2), partner(3)], { won: false, reason: 'no_candidates' }) };
    const out = await supplyAuction(w.deps, { ...asked, imp: { ...asked.imp, vastVersion: '3.0' as const } });
    // The 4.0 answer bid highest and is out; the 3.0 one wins at the 2.0 one's price plus a cent.
    expect(out).toMatchObject({ kind: 'partner', partnerId: 2, priceMicroCents: 201_000 });
    expect([w.deps.stats.peek(1, 'vast_too_new'), w.deps.stats.peek(2, 'vast_too_new')]).toEqual([1, 0]);
    // Asked for 4.0, every version plays.
    const all = world({ 1: 3, 2: 2.5 }, true, (id) => vast(id === 1 ? '4.2' : '2.0'));
    const four = input([partner(1), partner(2)], { won: false, reason: 'no_candidates' });
    expect(await supplyAuction(all.deps, { ...four, imp: { ...four.imp, vastVersion: '4.0' as const } })).toMatchObject(
      { kind: 'partner', partnerId: 1 },
    );
  });

  it('sends our supply chain node in source.ext.schain to a 2.5 partner and in source.schain to a 2.6 one', async () => {
    const w = world({ 1: 2, 2: 3 });
    await supplyAuction(
      w.deps,
      input([partner(1), partner(2, { openrtb_version: '2.6' })], { won: false, reason: 'no_candidates' }),
    );
    const chain = { complete: 1, ver: '1.0', nodes: [{ asi: 'adnet.example', sid: '9', hp: 1 }] };
    const [v25, v26] = w.bodies.map((b) => (JSON.parse(b) as { source: Record<string, unknown> }).source);
    expect(v25).toEqual({ tid: expect.any(String), ext: { schain: chain } });
    expect(v26).toEqual({ tid: v25?.tid, schain: chain });
    expect(w.versions).toEqual(['2.5', '2.6']);
  });

  it('failures, timeouts and garbage count against the partner and open its circuit; nothing wins', async () => {
    const w = world({
      1: { kind: 'timeout' },
      2: { kind: 'error', why: 'HTTP 500' },
      3: { kind: 'bid', body: 'nope' },
    });
    const ps = [partner(1), partner(2), partner(3)];
    for (let i = 0; i < 2; i++)
      expect(await supplyAuction(w.deps, input(ps, { won: false, reason: 'no_candidates' }))).toEqual({ kind: 'none' });
    expect([
      w.deps.stats.peek(1, 'timeouts'),
      w.deps.stats.peek(2, 'errors'),
      w.deps.stats.peek(3, 'invalid_json'),
    ]).toEqual([2, 2, 2]);
    expect(eligiblePartners(w.deps, ps, 'banner', 'us', 10)).toBeUndefined();
  });
});

describe('supplyAuction on a native zone', () => {
  it("reads the winner's Native answer (macros filled) into fields for our widget, and keeps its landing and click trackers for our redirect", async () => {
    const answer = {
      native: {
        assets: [
          { id: 1, title: { text: '<img src=x onerror=alert(1)>' } },
          { id: 2, img: { url: 'https://cdn.p1.example/i.jpg', w: 600, h: 314 } },
        ],
        link: {
          url: 'https://shop.example/?p=${AUCTION_PRICE}',
          clicktrackers: ['https://p1.example/c?p=${AUCTION_PRICE}'],
        },
        imptrackers: ['https://p1.example/i?p=${AUCTION_PRICE}'],
      },
    };
    const w = world({ 1: 3 }, true, () => JSON.stringify(answer));
    const base = input([partner(1, { formats: ['native'] })], { won: false, reason: 'no_candidates' });
    const out = await supplyAuction(w.deps, { ...base, imp: { ...base.imp, zone: { ...zone, format: 'native' } } });
    expect(out).toMatchObject({
      kind: 'partner',
      native: {
        title: '<img src=x onerror=alert(1)>',
        image: 'https://cdn.p1.example/i.jpg',
        imageW: 600,
        imageH: 314,
        pixels: ['https://p1.example/i?p=0.5'],
      },
    });
    expect([...w.wins.values()]).toEqual([
      {
        partnerId: 1,
        burl: undefined,
        adm: undefined,
        landing: 'https://shop.example/?p=0.5',
        clicktrackers: ['https://p1.example/c?p=0.5'],
      },
    ]);
  });

  it('discards a bid whose markup is no Native answer filling the required assets', async () => {
    const w = world({ 1: 3 }, true, () => '<div>banner</div>');
    const nativeZone = { ...zone, format: 'native' } as StoredZone;
    const base = input([partner(1, { formats: ['native'] })], { won: false, reason: 'no_candidates' });
    expect(await supplyAuction(w.deps, { ...base, imp: { ...base.imp, zone: nativeZone } })).toEqual({ kind: 'none' });
    expect(w.deps.stats.peek(1, 'no_markup')).toBe(1);
  });
});

describe('supplyAuction on a push slot', () => {
  const pushZone = { ...zone, format: 'push' } as StoredZone;
  const pushAdm = (id: number) =>
    JSON.stringify({
      native: {
        assets: [
          { id: 1, title: { text: `Offer ${id}` } },
          { id: 2, img: { url: id === 3 ? 'http://cdn.example/i.png' : 'https://cdn.example/i.png' } },
        ],
        link: { url: `https://p${id}.example/land?p=\${AUCTION_PRICE}` },
      },
    });
  const pushInput = (partners: DemandPartner[], own: Served | { won: false; reason: 'no_candidates' }) => ({
    ...input(partners, own),
    surface: 'push' as const,
    imp: { ...input(partners, own).imp, zone: pushZone, ua: '', ip: '' },
  });

  it('asks for the push native request; the winner carries its checked notification, its win notice left to the sender', async () => {
    const w = world({ 1: 3, 2: 2.5, 3: 9 }, true, pushAdm);
    const ps = [
      partner(1, { formats: ['push'] }),
      partner(2, { formats: ['push'] }),
      partner(3, { formats: ['push'] }),
    ];
    const out = await supplyAuction(w.deps, pushInput(ps, ownServed(2, 1)));
    expect(out).toMatchObject({
      kind: 'partner',
      partnerId: 1,
      priceMicroCents: 251_000,
      push: {
        title: 'Offer 1',
        text: '',
        icon: 'https://cdn.example/i.png',
        landing: 'https://p1.example/land?p=2.51',
      },
      nurl: 'https://p1.example/w?p=2.51',
    });
    if (out.kind === 'partner') {
      expect(decodeDemandTicket(SECRET, out.token)?.surface).toBe('push');
      // Kept for the click link (win-store.ts keeps a win with a landing a week): the landing, no markup.
      expect(w.wins.get(out.auctionId)).toEqual({
        partnerId: 1,
        burl: undefined,
        adm: undefined,
        landing: 'https://p1.example/land?p=2.51',
        clicktrackers: undefined,
      });
    }
    await settle();
    // The loser hears at once; the winner's nurl waits for the delivery. Partner 3's http icon: discarded.
    expect(w.notices).toEqual(['https://p2.example/l?r=102']);
    expect(w.deps.stats.peek(3, 'bad_icon')).toBe(1);
  });

  it('reads an in-page push zone the same way, with its own request; served on the page, its win notice goes out at once', async () => {
    const w = world({ 1: 3, 3: 9 }, true, pushAdm);
    const inPage = { ...zone, format: 'in_page_push' } as StoredZone;
    const base = input([partner(1, { formats: ['in_page_push'] }), partner(3, { formats: ['in_page_push'] })], {
      won: false,
      reason: 'no_candidates',
    });
    const out = await supplyAuction(w.deps, { ...base, imp: { ...base.imp, zone: inPage } });
    expect(out).toMatchObject({
      kind: 'partner',
      partnerId: 1,
      native: undefined,
      push: { title: 'Offer 1', icon: 'https://cdn.example/i.png', landing: 'https://p1.example/land?p=0.5' },
    });
    if (out.kind === 'partner') {
      expect(decodeDemandTicket(SECRET, out.token)?.surface).toBe('widget');
      expect(w.wins.get(out.auctionId)?.landing).toBe('https://p1.example/land?p=0.5');
    }
    await settle();
    expect(w.notices).toEqual(['https://p1.example/w?p=0.5']);
    expect(w.deps.stats.peek(3, 'bad_icon')).toBe(1);
  });
});

describe('eligiblePartners', () => {
  it('by format, country, QPS and circuit; nothing at all without partners', () => {
    const deps = { breaker: new CircuitBreaker(), limiter: new PartnerLimiter(1) };
    expect(eligiblePartners(deps, [], 'banner', 'us', 0)).toBeUndefined();
    const ps = [
      partner(1),
      partner(2, { formats: ['video'] }),
      partner(3, { countries: ['de'] }),
      partner(4, { qps_limit: 1 }),
    ];
    expect(eligiblePartners(deps, ps, 'banner', 'us', 0)?.map((p) => p.id)).toEqual([1, 4]);
    const skipped: string[] = [];
    expect(
      eligiblePartners(deps, ps, 'banner', 'us', 0, (id, why) => skipped.push(`${id}:${why}`))?.map((p) => p.id),
    ).toEqual([1]);
    expect(skipped).toEqual(['4:skipped_qps']);
    // Partner 4's one request a second is spent.
    expect(eligiblePartners(deps, ps, 'banner', 'de', 2_000)?.map((p) => p.id)).toEqual([1, 3]);
  });
});
