// `npx tsx bench/src/ab-audience.ts <tree>`: the bid handler and GET /imp of another checkout of this
// repository (<tree>, "before") against this one ("after"), in one process, over the same generated
// world (10 000 campaigns; some target OS, browser or connection type) and the same requests, in
// alternating blocks. Before: the visitor's country from X-Country, as the code before real geo took it.
// After: from the client address (a pool of AB_VISITORS addresses, 50 000 by default, so the per-address
// memo of 10 000 mostly misses).
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type * as Bid from '@adnet/engine/bid-route';
import type * as EngineIndex from '@adnet/engine/engine-index';
import type * as WidgetServe from '@adnet/engine/widget-serve-route';
import type * as ZoneRate from '@adnet/engine/zone-request-rate';
import { contextFixtureOf } from './ab-trees.ts';
import { makeCorpus, rng } from './corpus.ts';
import { generateWorld } from './world.ts';

const here = fileURLToPath(new URL('../..', import.meta.url));
const trees = { before: resolve(process.argv[2] ?? ''), after: here };
const BLOCK = 20_000;
const ROUNDS = Number(process.env.AB_ROUNDS ?? 5);

interface Handlers {
  bid: (body: Buffer) => unknown;
  imp: (ip: string, ua: string, country: string) => unknown;
}

const world = generateWorld({ campaigns: 10_000, creativesPerCampaign: 3, advertisers: 500 });
// AB_UNTARGETED=1: no campaign targets OS, browser or connection, to tell the checks' own cost from their effect.
if (process.env.AB_UNTARGETED === '1')
  for (const c of world.campaigns) Object.assign(c, { os_include: [], browser_include: [], connection_types: [] });
const now = new Date().toISOString();
const site = {
  id: 1,
  publisher_id: 1,
  domain: 'news.example.com',
  category: 'news',
  language: 'en',
  traffic_estimate_daily: 1000,
  verification_code: 'v',
  status: 'approved',
  rejection_reason: null,
  verified_method: 'meta',
  created_at: now,
  updated_at: now,
};
const zone = {
  id: 1,
  site_id: 1,
  publisher_id: 1,
  subid: 'benchnative',
  name: 'n',
  format: 'native',
  fv_corner: null,
  fv_delay_sec: null,
  fv_freq_cap_hours: null,
  banner_width: null,
  banner_height: null,
  status: 'active',
  created_at: now,
  updated_at: now,
};

async function handlersOf(tree: string): Promise<Handlers> {
  const { buildIndex } = (await import(`${tree}/engine/src/index/engine-index.ts`)) as typeof EngineIndex;
  const { bidPathContext, bidRequestOf } = await contextFixtureOf(tree);
  const { bidRoute } = (await import(`${tree}/engine/src/http/routes/bid.ts`)) as typeof Bid;
  const { impRoute } = (await import(`${tree}/engine/src/http/routes/widget-serve.ts`)) as typeof WidgetServe;
  const { ZoneRequestRate } = (await import(`${tree}/engine/src/fraud/zone-request-rate.ts`)) as typeof ZoneRate;
  const state = {
    campaign: new Map(world.campaigns.map((c) => [c.id, c])),
    creative: new Map(world.creatives.map((c) => [c.id, c])),
    partner: new Map([[1, world.partner]]),
    site: new Map([[1, site]]),
    zone: new Map([[1, zone]]),
  } as unknown as Parameters<typeof buildIndex>[0];
  const ctx = bidPathContext(buildIndex(state, '1-0'), {
    // No request limits in the way: every request goes through the auction.
    zoneRequests: new ZoneRequestRate({ perAddressPerMinute: 1e9, perFingerprintPerMinute: 1e9, maxKeys: 1_000_000 }),
  });
  const bid = bidRoute(ctx);
  const imp = impRoute(ctx);
  const base = { method: 'get', path: '/imp', params: [], body: Buffer.alloc(0), requestId: 'ab', viaProxy: false };
  return {
    bid: (body) => bid(bidRequestOf(body)),
    imp: (ip, ua, country) =>
      imp({
        ...base,
        query: 'z=benchnative&fp=abcdef&s=e30',
        ip,
        headers: {
          'x-country': country,
          'cf-ipcountry': '',
          'accept-language': 'en-US,en;q=0.9',
          'user-agent': ua,
          'sec-ch-ua-platform': '',
          'sec-ch-ua-mobile': '',
          origin: 'https://news.example.com',
          referer: '',
        },
      }),
  };
}

const before = await handlersOf(trees.before);
const after = await handlersOf(trees.after);
const { countryOfAddress } = await import('@adnet/engine/geo');

// Visitors: 50 000 public addresses the database places, with 30 real browsers' user agents.
const r = rng(3);
const visitors: { ip: string; country: string }[] = [];
while (visitors.length < Number(process.env.AB_VISITORS ?? 50_000)) {
  const ip = `${1 + Math.floor(r() * 222)}.${Math.floor(r() * 256)}.${Math.floor(r() * 256)}.${1 + Math.floor(r() * 254)}`;
  const country = countryOfAddress(ip);
  if (country) visitors.push({ ip, country });
}
const UAS = [
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/125.0.0.0 Safari/537.36',
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/125.0.0.0 Safari/537.36 Edg/125.0.2535.51',
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Safari/605.1.15',
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1',
  'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/125.0 Mobile Safari/537.36',
  'Mozilla/5.0 (Linux; Android 13; SM-S918B) AppleWebKit/537.36 (KHTML, like Gecko) SamsungBrowser/24.0 Chrome/117.0.0.0 Mobile Safari/537.36',
  'Mozilla/5.0 (X11; Linux x86_64; rv:126.0) Gecko/20100101 Firefox/126.0',
].flatMap((ua, i) => Array.from({ length: 4 + (i % 2) }, (_, k) => ua.replace(/\d+\.0/, `${120 + k}.0`)));

const corpus = makeCorpus(1_000);
let n = 0;
const time = (run: () => void): number => {
  const t = performance.now();
  for (let i = 0; i < BLOCK; i++) run();
  return ((performance.now() - t) * 1000) / BLOCK;
};
const bidOf = (h: Handlers) => () => void h.bid(corpus[n++ % corpus.length] as Buffer);
const impOf = (h: Handlers) => () => {
  const v = visitors[n++ % visitors.length] as { ip: string; country: string };
  void h.imp(v.ip, UAS[n % UAS.length] as string, v.country.toUpperCase());
};
// Before reads the country from the header; after ignores a visitor's own header and looks the address up.
for (const run of [bidOf(before), bidOf(after), impOf(before), impOf(after)]) time(run);
const rows: string[] = [];
for (let round = 1; round <= ROUNDS; round++) {
  const b = time(bidOf(before));
  const a = time(bidOf(after));
  const ib = time(impOf(before));
  const ia = time(impOf(after));
  rows.push(
    `| ${round} | ${b.toFixed(2)} | ${a.toFixed(2)} | ${(a / b).toFixed(3)} | ${ib.toFixed(2)} | ${ia.toFixed(2)} | ${(ia / ib).toFixed(3)} |`,
  );
}
process.stdout.write(
  [
    '| round | bid before (us) | bid after (us) | after / before | /imp before (us) | /imp after (us) | after / before |',
    '|---|---|---|---|---|---|---|',
    ...rows,
    '',
  ].join('\n'),
);
