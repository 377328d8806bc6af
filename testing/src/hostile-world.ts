import { createHmac } from 'node:crypto';
import type { BidResponse } from '@adnet/schemas/openrtb';
import { EVENT_STREAM } from '@adnet/schemas/redis-keys';
import type { Redis } from 'ioredis';
import { call } from './admin.ts';
import type { Account } from './admin.ts';
import { eventually, postBid } from './engine.ts';
import type { TestEngine } from './engine.ts';
import { bannerRequest } from './world.ts';
import type { World } from './world.ts';

// The world a hostile run must leave as it found it: an advertiser's campaigns serving on a publisher's
// zones, with accepted wins, widget impressions, VAST impressions, clicks and a signed conversion.

export const BROWSER = {
  'user-agent':
    'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_0) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Safari/605.1.15',
  'x-country': 'FR',
  'accept-language': 'fr-FR,fr;q=0.9',
};

export const signPostback = (
  key: string,
  f: { click_id: string; payout: string; status: string; txid: string },
): string => createHmac('sha256', key).update(`${f.click_id}|${f.payout}|${f.status}|${f.txid}`).digest('hex');

export interface ServedWorld {
  advertiser: Account;
  campaignIds: number[];
  zones: { banner: string; video: string; push: string };
  zoneIds: number[];
  siteId: number;
  /** Signed path parts the world's traffic used: real tickets and tokens for the hostile run to reuse and forge. */
  tickets: { win: string[]; pixel: string[]; beacon: string[]; click: [string, string][] };
  clickIds: string[];
}

/** An ad of `zone` served, rendered (its beacons) and clicked, as a browser would. */
export async function serveAndClick(
  engine: TestEngine,
  zone: string,
  fp: string,
): Promise<{ beaconUrl: string; clickUrl: string; clickId: string }> {
  const served = await fetch(`${engine.base}/imp?z=${zone}&fp=${fp}`, { headers: BROWSER });
  if (served.status !== 200) throw new Error(`/imp of ${zone}: ${served.status}`);
  const ad = (await served.json()) as { beacon_url: string; click_url: string };
  await fetch(ad.beacon_url, { headers: BROWSER });
  await fetch(`${ad.beacon_url}?e=viewable`, { headers: BROWSER });
  const click = await fetch(`${ad.click_url}?ttc=2000&x=5&y=5&focus=1&fp=${fp}`, {
    redirect: 'manual',
    headers: BROWSER,
  });
  const clickId = /c=([0-9a-f-]{36})/.exec(click.headers.get('location') ?? '')?.[1];
  if (!clickId) throw new Error(`click: ${click.status} ${click.headers.get('location')}`);
  return { beaconUrl: ad.beacon_url, clickUrl: ad.click_url, clickId };
}

/** Builds the world through the real API and the real engine, and serves it some traffic. */
export async function serveWorld(world: World, engine: TestEngine): Promise<ServedWorld> {
  const app = world.app;
  await world.partner();
  const advertiser = await world.advertiser(100_000);
  const banner = await world.campaign(advertiser, { format: 'banner', bid_usd: 2 });
  const video = await world.campaign(advertiser, { format: 'floating_video', bid_usd: 3 });
  const site = await world.site();
  const zone = (fields: Record<string, unknown>) => world.zone(fields, site);
  const bannerZone = await zone({ format: 'banner', banner_width: 300, banner_height: 250 });
  const videoZone = await zone({ format: 'floating_video', fv_corner: 'br', fv_delay_sec: 3, fv_freq_cap_hours: 6 });
  const pushZone = await zone({ format: 'push' });
  await eventually(
    () =>
      engine.engine.mirror.index?.candidateCount === 2 &&
      engine.engine.mirror.index.zones.get(videoZone.subid)?.serving === true,
  );
  // The first budget slices.
  await new Promise((r) => setTimeout(r, 300));

  const tickets: ServedWorld['tickets'] = { win: [], pixel: [], beacon: [], click: [] };
  const ticketOf = (url: string, prefix: string) => new URL(url).pathname.slice(prefix.length);
  for (let i = 0; i < 3; i++) {
    const bid = await postBid(engine.base, bannerRequest({ id: `world-${i}` }));
    const nurl = (bid.body as unknown as BidResponse).seatbid[0]?.bid[0]?.nurl;
    if (!nurl) throw new Error(`world bid ${i}: ${bid.status} ${JSON.stringify(bid.body)}`);
    if ((await fetch(nurl.replace('${AUCTION_PRICE}', '1.5'))).status !== 200) throw new Error('win notice refused');
    tickets.win.push(ticketOf(nurl, '/openrtb/win/'));
  }
  const clickIds: string[] = [];
  for (let i = 0; i < 3; i++) {
    const ad = await serveAndClick(engine, bannerZone.subid, `world-fp-${i}`);
    tickets.beacon.push(ticketOf(ad.beaconUrl, '/b/'));
    const [impression = '', token = ''] = ticketOf(ad.clickUrl, '/c/').split('/');
    tickets.click.push([impression, token]);
    clickIds.push(ad.clickId);
  }
  for (let i = 0; i < 2; i++) {
    const xml = await (await fetch(`${engine.base}/vast/${videoZone.subid}.xml`, { headers: BROWSER })).text();
    const pixel = /<Impression id="imp"><!\[CDATA\[(.+?)\]\]>/.exec(xml)?.[1];
    if (!pixel) throw new Error(`world VAST had no ad: ${xml.slice(0, 200)}`);
    await fetch(pixel);
    tickets.pixel.push(ticketOf(pixel, '/openrtb/imptracker/'));
  }
  const secret = String((await call(app, 'GET', '/api/adv/profile', { token: advertiser.token })).body.postback_secret);
  const conv = { click_id: clickIds[0] as string, payout: '1500', status: 'approved', txid: 'world-tx-1' };
  const pb = await fetch(`${app.base}/postback/in`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ ...conv, secret, sig: signPostback(secret, conv) }).toString(),
  });
  if (pb.status !== 200) throw new Error(`world conversion: ${pb.status} ${await pb.text()}`);
  await engine.engine.events.flush();
  await engine.engine.budget.flush();
  return {
    advertiser,
    campaignIds: [banner.campaign.id, video.campaign.id],
    zones: { banner: bannerZone.subid, video: videoZone.subid, push: pushZone.subid },
    zoneIds: [bannerZone.id, videoZone.id, pushZone.id],
    siteId: site.id,
    tickets,
    clickIds,
  };
}

/** What was accepted: the event stream's entries, every conversion record, every budget pool's spend, every ledger entry. */
export interface Accepted {
  events: Map<string, string>;
  conversions: Map<string, string>;
  spent: Map<string, number>;
  ledger: Map<string, string>;
}

const entriesOf = async (redis: Redis, key: string) =>
  new Map(
    (await redis.xrangeBuffer(key, '-', '+')).map(([id, fields]) => [
      `${key} ${String(id)}`,
      Buffer.concat(fields).toString('base64'),
    ]),
  );

async function keysLike(redis: Redis, pattern: string): Promise<string[]> {
  const out: string[] = [];
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
    cursor = next;
    out.push(...keys);
  } while (cursor !== '0');
  return out;
}

export async function acceptedState(redis: Redis): Promise<Accepted> {
  const conversions = new Map<string, string>();
  for (const key of await keysLike(redis, 'conv:*')) {
    if ((await redis.type(key)) !== 'hash') continue;
    for (const [field, value] of Object.entries(await redis.hgetall(key))) conversions.set(`${key} ${field}`, value);
  }
  const spent = new Map<string, number>();
  for (const key of await keysLike(redis, 'bud:*')) spent.set(key, Number((await redis.hget(key, 'spent')) ?? 0));
  const ledger = new Map<string, string>();
  for (const key of await keysLike(redis, '*:ledger'))
    for (const [k, v] of await entriesOf(redis, key)) ledger.set(k, v);
  return { events: await entriesOf(redis, EVENT_STREAM), conversions, spent, ledger };
}

/** What of `before` is gone or changed in `after` (spend may only grow). */
export function lostSince(before: Accepted, after: Accepted): string[] {
  const lost: string[] = [];
  for (const part of ['events', 'conversions', 'ledger'] as const)
    for (const [k, v] of before[part])
      if (after[part].get(k) !== v) lost.push(`${part}: ${k} ${after[part].has(k) ? 'changed' : 'gone'}`);
  for (const [k, v] of before.spent)
    if ((after.spent.get(k) ?? 0) < v) lost.push(`spent: ${k} fell from ${v} to ${after.spent.get(k) ?? 0}`);
  return lost;
}

/** Redis's size: used memory, and every key with its expiry and size. */
export interface Footprint {
  usedMemory: number;
  keys: Map<string, { ttl: number; bytes: number }>;
}

export async function footprint(redis: Redis): Promise<Footprint> {
  const info = await redis.info('memory');
  const usedMemory = Number(/used_memory:(\d+)/.exec(info)?.[1] ?? NaN);
  const keys = new Map<string, { ttl: number; bytes: number }>();
  for (const key of await keysLike(redis, '*')) {
    const [ttl, bytes] = await Promise.all([
      redis.pttl(key),
      redis.call('MEMORY', 'USAGE', key, 'SAMPLES', '0') as Promise<number | null>,
    ]);
    keys.set(key, { ttl, bytes: bytes ?? 0 });
  }
  return { usedMemory, keys };
}
