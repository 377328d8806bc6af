// `tsx bench/src/ab-imp.ts <before-checkout> <after-checkout>`: the /imp handler of two trees timed in one
// process over the same world, zone and 20 000 requests (distinct visitors, one site's page).
import type { ConfigState } from '@adnet/engine/engine-index';
import type { EngineRequest } from '../../engine/src/http/adapt.ts';
import { alternate, clockUs, loadTree, timedBuild } from './ab-trees.ts';
import type { Tree } from './ab-trees.ts';
import { addSourceLists, generateWorld } from './world.ts';

const world = generateWorld({ campaigns: 2_000, creativesPerCampaign: 3, advertisers: 200, deliveryRules: true });
// 10 000-entry source lists on 1 000 of the campaigns, 60 bid adjustments on a share of those (BENCH_ADJUSTED, default 0.2;
// BENCH_SOURCE_LISTS=0: neither); a tree from before them ignores both.
const sourceLists =
  process.env.BENCH_SOURCE_LISTS === '0'
    ? undefined
    : addSourceLists(world, { campaigns: 1_000, entries: 10_000, zone: 'benchzone01', siteId: 1, adjusted: Number(process.env.BENCH_ADJUSTED ?? 0.2) });
const now = new Date().toISOString();
const site = { id: 1, publisher_id: 9, domain: 'news.example', status: 'approved', category: 'news', language: 'en', created_at: now, updated_at: now };
const zone = {
  id: 1,
  site_id: 1,
  publisher_id: 9,
  subid: 'benchzone01',
  name: 'z',
  format: 'banner',
  banner_width: 300,
  banner_height: 250,
  status: 'active',
  created_at: now,
  updated_at: now,
};
const state: ConfigState = {
  campaign: new Map(world.campaigns.map((c) => [c.id, c])),
  creative: new Map(world.creatives.map((c) => [c.id, c])),
  partner: new Map([[1, world.partner]]),
  site: new Map([[1, site]]),
  zone: new Map([[1, zone]]),
  deal: new Map(),
  ...(sourceLists ? { campaign_sources: sourceLists } : {}),
};
const headers = {
  'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/125.0 Safari/537.36',
  'accept-language': 'en-US',
  'x-country': 'US',
  origin: 'https://www.news.example',
};
const requests: EngineRequest[] = Array.from({ length: 20_000 }, (_, i) => ({
  method: 'get',
  path: '/imp',
  // A first-party id per visitor: the trees that know frequency caps look each one up.
  query: `z=benchzone01&fp=fingerprint${i}&s=e30&u=visitor-id-${String(i).padStart(10, '0')}`,
  ip: `10.${(i >> 8) & 255}.${i & 255}.1`,
  headers,
  params: [],
  body: Buffer.alloc(0),
  requestId: 'r',
  // Behind the balancer, which sets the country header.
  viaProxy: true,
}));

function timer(tree: Tree) {
  const index = timedBuild(tree, state);
  // Limits as the engine builds them (the fixture's are small).
  const limits = tree.requestRate
    ? { zoneRequests: new tree.requestRate.ZoneRequestRate({ perAddressPerMinute: 600, perFingerprintPerMinute: 30, maxKeys: 200_000 }) }
    : {};
  const handle = tree.widget.impRoute(tree.fixture.bidPathContext(index, { emit: () => undefined, engineId: 'bench', ...limits }));
  return () => {
    let ok = 0;
    const t = clockUs();
    for (const r of requests) if (handle(r).status === 200) ok++;
    return { us: (clockUs() - t) / requests.length, ok };
  };
}

const [before, after] = await Promise.all([loadTree(process.argv[2] ?? '.'), loadTree(process.argv[3] ?? '.')]);
alternate(timer(before), timer(after));
