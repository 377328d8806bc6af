// The widget's side of the load runs (run-load.ts, run-wrk.ts): one approved site with a 300x250 banner
// zone, distinct visitors behind the balancer, and the click and beacon links of ads served to them.
import { ConfigStore } from '@adnet/admin/config-store';
import { Redis } from 'ioredis';

export const ZONE = 'benchzone01';
/** A direct-link zone on the same site: `/go` ranks the world's popunder campaigns (bench/src/world.ts). */
export const GO_ZONE = 'benchgozone1';
export const SITE_DOMAIN = 'news.example';

/** A widget request's path and the visitor it comes from (sent as X-Forwarded-For: the engine trusts 127.0.0.1 as its balancer). */
export interface VisitorRequest {
  path: string;
  ip: string;
}

export const WIDGET_HEADERS: Readonly<Record<string, string>> = {
  'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/125.0 Safari/537.36',
  'accept-language': 'en-US',
  origin: `https://www.${SITE_DOMAIN}`,
  referer: `https://www.${SITE_DOMAIN}/article`,
};

const ipOf = (i: number) => `10.${(i >> 8) & 255}.${i & 255}.${1 + ((i >> 16) & 127)}`;

/** Visitor `i`'s ad request: its own address, fingerprint and first-party id. */
export const impRequest = (i: number): VisitorRequest => ({
  path: `/imp?z=${ZONE}&fp=fingerprint${i}&s=e30&u=visitor-id-${String(i).padStart(10, '0')}`,
  ip: ipOf(i),
});

/** Visitor `i`'s visit of the direct-link zone's URL: its own address, so a pop each until the zone's cap. */
export const goRequest = (i: number): VisitorRequest => ({ path: `/go/${GO_ZONE}`, ip: ipOf(i) });

/**
 * Visitor `i`'s header bid as our Prebid.js adapter sends it (POST /hb/bid, text/plain): one imp naming the zone in
 * its size, the visitor's first-party id; `path` is the body here, posted from the visitor's address.
 */
export const hbRequest = (i: number): VisitorRequest => ({
  path: JSON.stringify({
    id: `auction-${i}`,
    imp: [{ id: '1', tagid: ZONE, banner: { format: [{ w: 300, h: 250 }] } }],
    site: { page: `https://www.${SITE_DOMAIN}/article` },
    ext: { adnet: { u: `visitor-id-${String(i).padStart(10, '0')}` } },
  }),
  ip: ipOf(i),
});

/** The fields of other formats, empty, as the API stores them: the admin's answers about the zone need them. */
export const NO_FORMAT_FIELDS = { fv_corner: null, fv_delay_sec: null, fv_freq_cap_hours: null, push_prompt: null };

/** Writes the site and zone (of publisher `publisherId`) through the admin's own storage code. */
export async function seedWidgetZone(redisUrl: string, publisherId = 9): Promise<void> {
  const redis = new Redis(redisUrl);
  const store = new ConfigStore(redis, 1_000_000);
  const now = new Date().toISOString();
  const site = {
    id: 1,
    publisher_id: publisherId,
    domain: SITE_DOMAIN,
    status: 'approved',
    category: 'news',
    language: 'en',
    created_at: now,
    updated_at: now,
  };
  await store.commit('site', 1, { expectedRev: 0, value: site });
  const zone = {
    ...{
      id: 1,
      site_id: 1,
      publisher_id: publisherId,
      subid: ZONE,
      name: 'bench',
      format: 'banner',
      banner_width: 300,
      banner_height: 250,
    },
    ...{ status: 'active', created_at: now, updated_at: now },
    ...NO_FORMAT_FIELDS,
  };
  await store.commit('zone', 1, { expectedRev: 0, value: zone });
  const go = {
    ...zone,
    ...{ id: 2, subid: GO_ZONE, name: 'bench go', format: 'direct_link', banner_width: null, banner_height: null },
    ...{ pop_freq_cap_hours: 24, pop_trigger: null, pop_new_tab: null },
  };
  await store.commit('zone', 2, { expectedRev: 0, value: go });
  await redis.quit();
}

/** What the widget adds to a click link when the visitor clicks (widget/src/widget.ts): a human's time to click, position, focus. */
export const clickSignals = (i: number) =>
  `?ttc=${1_200 + (i % 800)}&x=${20 + (i % 200)}&y=${10 + (i % 150)}&focus=1&fp=fingerprint${i}&s=e30`;

/**
 * Asks a running engine for ads as visitors `from`, `from + 1`, ... until `wanted` were served, and
 * answers their click and beacon links: what real visitors' widgets would call next, each ticket
 * once (a valid click: the widget's signals added). With `rendered`, each ad's beacon is sent here, as
 * its widget sends it on render: a click counts only on a rendered ad, so a click run measures the
 * valid path (its beacons, already counted, are then no corpus for a beacon run). `parallel` requests
 * are in flight at a time.
 */
export async function servedLinks(
  port: number,
  from: number,
  wanted: number,
  { parallel = 32, rendered = false }: { parallel?: number; rendered?: boolean } = {},
): Promise<{ clicks: VisitorRequest[]; beacons: VisitorRequest[] }> {
  const clicks: VisitorRequest[] = [];
  const beacons: VisitorRequest[] = [];
  let next = from;
  const ask = async (): Promise<void> => {
    while (next < from + wanted * 2 && clicks.length < wanted) {
      const i = next++;
      const req = impRequest(i);
      // Once more on a refused connection: the engine closes kept-alive connections that idled (during a wrk run).
      const get = () =>
        fetch(`http://127.0.0.1:${port}${req.path}`, { headers: { ...WIDGET_HEADERS, 'x-forwarded-for': req.ip } });
      const r = await get().catch(get);
      if (r.status !== 200) {
        await r.body?.cancel();
        continue;
      }
      const ad = (await r.json()) as { click_url?: string; beacon_url?: string };
      if (!ad.click_url || !ad.beacon_url || clicks.length >= wanted) continue;
      const at = (u: string, query = ''): VisitorRequest => {
        const url = new URL(u);
        return { path: `${url.pathname}${url.search || query}`, ip: req.ip };
      };
      if (rendered) {
        const beacon = await fetch(ad.beacon_url, { headers: { ...WIDGET_HEADERS, 'x-forwarded-for': req.ip } });
        await beacon.body?.cancel();
        if (beacon.status !== 200) throw new Error(`the render beacon answered ${beacon.status}`);
      }
      clicks.push(at(ad.click_url, clickSignals(i)));
      beacons.push(at(ad.beacon_url));
    }
  };
  await Promise.all(Array.from({ length: wanted ? parallel : 0 }, ask));
  if (wanted && clicks.length === 0)
    throw new Error('no ad served to the click and beacon runs: the world or the zone is wrong');
  return { clicks, beacons };
}
