import { alpha3ToAlpha2 } from '@adnet/schemas/geo';
import type { BidRequest, Imp } from '@adnet/schemas/openrtb';
import { deviceTypeOf } from '@adnet/schemas/openrtb';
import type { NoBidReason } from '@adnet/schemas/events';
import type { StoredSite, StoredZone } from '@adnet/schemas/publisher';
import type { EngineIndex, ZoneEntry } from '../index/engine-index.ts';
import { slotFor, slotsOf } from '../index/slots.ts';
import { isBotUserAgent } from '../fraud/bot-user-agent.ts';
import { ipPrefixOf, uaHashOf } from '../tracking/viewer.ts';
import type { TicketSurface } from '../tracking/signed-token.ts';
import { REQUEST_FILTERS } from './filters/index.ts';

/** Where a browser request comes from, as far as the engine can tell from its headers. */
export interface Visitor {
  country: string | undefined;
  language: string | undefined;
  device: 'desktop' | 'mobile' | 'tablet';
  /** The viewer's network and user agent, as tickets keep them (see tracking/viewer.ts); '' when unknown. */
  ipPrefix: string;
  uaHash: string;
  /** The user agent is a bot's (see fraud/bot-user-agent.ts). */
  bot: boolean;
}

/** What every auction of one request shares: built once, read by the filters and by serve. */
export interface RequestContext {
  /** The index snapshot every auction of this request reads. */
  index: EngineIndex;
  /** Milliseconds since the epoch when the request was taken. */
  ts: number;
  /** The OpenRTB request id; undefined for our own zones. */
  auctionId: string | undefined;
  /** 0 for our own zones. */
  partnerId: number;
  /** Lower-case ISO alpha-2. */
  country: string | undefined;
  language: string | undefined;
  device: string | undefined;
  /** `cur` allows USD (or is absent). */
  usd: boolean;
  bcat: readonly string[] | undefined;
  badv: readonly string[] | undefined;
  /** One of our sites, when `site.id` names it. */
  ownSite: StoredSite | undefined;
  siteDomain: string | undefined;
  /** The first request-scope filter that rejects the request: every impression's no-bid reason. */
  rejected: NoBidReason | undefined;
  /** Where the ad will be shown, and to whom: kept in every ticket of the request. */
  surface: TicketSurface;
  ipPrefix: string;
  uaHash: string;
  /** OpenRTB `test: 1`: answered as usual, never charged. */
  test: boolean;
  /** General invalid traffic by user agent. */
  bot: boolean;
}

/** Where an impression lands in our inventory: zeros when it is none of ours. */
export interface Inventory {
  publisherId: number;
  siteId: number;
  zoneId: number;
}

/** One impression: what the imp and candidate filters read. */
export interface ImpContext {
  impId: string | undefined;
  /** The slots the impression accepts (see index/slots.ts). */
  slots: readonly string[];
  floorMicroCents: number;
  /** `bidfloorcur`, when given. */
  floorCurrency: string | undefined;
  /** Our zone, when `imp.tagid` names one (or the zone a widget asked for). */
  zone: ZoneEntry | undefined;
  inventory: Inventory;
  // Copied from the request so candidate filters read one object in the hot loop.
  language: string | undefined;
  device: string | undefined;
  bcat: readonly string[] | undefined;
  badv: readonly string[] | undefined;
}

const OWN_SITE_ID = /^\d{1,10}$/;

/** Runs the request-scope filters, once per request. */
function withVerdict(req: RequestContext): RequestContext {
  for (const f of REQUEST_FILTERS) {
    if (f.reject(req)) {
      req.rejected = f.name;
      break;
    }
  }
  return req;
}

/** The context of an OpenRTB request: geo mapped to alpha-2, language to two letters, our site looked up. */
export function openRtbContext(request: BidRequest, index: EngineIndex, partnerId: number, ts: number): RequestContext {
  const geo = request.device?.geo?.country;
  const siteId = request.site?.id;
  return withVerdict({
    index,
    ts,
    auctionId: request.id,
    partnerId,
    country: geo ? (geo.length === 3 ? alpha3ToAlpha2(geo) : geo.toLowerCase()) : undefined,
    language: request.device?.language?.slice(0, 2).toLowerCase(),
    device: deviceTypeOf(request.device?.devicetype),
    usd: !request.cur || request.cur.length === 0 || request.cur.includes('USD'),
    bcat: request.bcat,
    badv: request.badv,
    // A request naming one of our sites (site.id) is served only if that site is approved.
    ownSite: siteId && OWN_SITE_ID.test(siteId) ? index.sites.get(Number(siteId)) : undefined,
    siteDomain: request.site?.domain,
    rejected: undefined,
    surface: 'openrtb',
    ipPrefix: ipPrefixOf(request.device?.ip ?? ''),
    uaHash: uaHashOf(request.device?.ua ?? ''),
    test: request.test === 1,
    // A partner may leave the user agent out; one it sends that is a bot's gets no bid.
    bot: request.device?.ua !== undefined && isBotUserAgent(request.device.ua),
  });
}

/** An OpenRTB impression: its slots, floor, and our zone when `tagid` names one. */
export function openRtbImp(req: RequestContext, imp: Imp): ImpContext {
  const zone = imp.tagid ? req.index.zones.get(imp.tagid) : undefined;
  const z = zone?.zone;
  const site = req.ownSite;
  return {
    impId: imp.id,
    slots: slotsOf(imp),
    floorMicroCents: Math.ceil((imp.bidfloor ?? 0) * 100_000),
    floorCurrency: imp.bidfloorcur,
    zone,
    inventory: z
      ? { publisherId: z.publisher_id, siteId: z.site_id, zoneId: z.id }
      : { publisherId: site?.publisher_id ?? 0, siteId: site?.id ?? 0, zoneId: 0 },
    language: req.language,
    device: req.device,
    bcat: req.bcat,
    badv: req.badv,
  };
}

/** A visitor of one of our zones (widget, VAST player, push subscriber): no partner, USD, no floor. */
export function visitorContext(index: EngineIndex, v: Visitor, ts: number, surface: TicketSurface): RequestContext {
  return withVerdict({
    index,
    ts,
    auctionId: undefined,
    partnerId: 0,
    country: v.country,
    language: v.language,
    device: v.device,
    usd: true,
    bcat: undefined,
    badv: undefined,
    ownSite: undefined,
    siteDomain: undefined,
    rejected: undefined,
    surface,
    ipPrefix: v.ipPrefix,
    uaHash: v.uaHash,
    test: false,
    bot: v.bot,
  });
}

/** The one impression of a zone request. */
export function zoneImp(req: RequestContext, entry: ZoneEntry): ImpContext {
  const z: StoredZone = entry.zone;
  return {
    impId: undefined,
    slots: [slotFor(z.format, z.banner_width, z.banner_height)],
    floorMicroCents: 0,
    floorCurrency: undefined,
    zone: entry,
    inventory: { publisherId: z.publisher_id, siteId: z.site_id, zoneId: z.id },
    language: req.language,
    device: req.device,
    bcat: undefined,
    badv: undefined,
  };
}
