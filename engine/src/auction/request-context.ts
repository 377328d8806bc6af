import { COUNTRY_CODES, alpha3ToAlpha2 } from '@adnet/schemas/geo';
import type { BidRequest, Imp } from '@adnet/schemas/openrtb';
import { connectionTypeOf, deviceTypeOf } from '@adnet/schemas/openrtb';
import type { StoredZone } from '@adnet/schemas/publisher';
import type { EngineIndex, ZoneEntry } from '../index/engine-index.ts';
import { slotFor, slotsOf } from '../index/slots.ts';
import { countryOfAddress } from '../audience/geo.ts';
import { osFamilyOfName, structuredUserAgentFacts, userAgentFacts } from '../audience/user-agent.ts';
import { isBotUserAgent } from '../fraud/bot-user-agent.ts';
import type { RequestFlood } from '../fraud/zone-request-rate.ts';
import { ipPrefixOf, uaHashOf } from '../tracking/viewer.ts';
import type { TicketSurface } from '../tracking/signed-token.ts';
import { REQUEST_FILTERS } from './filters/index.ts';
import { parseNativeRequest } from '../openrtb/native-request.ts';
import { videoVastVersion } from '../openrtb/vast-version.ts';
import type { Viewer } from './ports.ts';
import { privacyBar } from '../openrtb/privacy.ts';
import type { PrivacyBar } from '../openrtb/privacy.ts';
import type { ImpContext, MatchedDeal, RequestContext, Visitor } from './request-types.ts';

export type { ImpContext, Inventory, MatchedDeal, RequestContext, Visitor } from './request-types.ts';

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

// ---- who the user is, for frequency caps (docs/delivery.md#frequency-caps)

const ZERO_IFA = /^[0-]+$/;
/** A partner's user: `user.id` (in that partner's id space), else `device.ifa` (all zeros means the user opted out). */
export function openRtbUserId(request: BidRequest, partnerId: number): string | undefined {
  const id = request.user?.id;
  if (typeof id === 'string' && id !== '' && id.length <= 256) return `p${partnerId}:${id}`;
  const ifa = request.device?.ifa;
  if (typeof ifa === 'string' && ifa !== '' && ifa.length <= 256 && !ZERO_IFA.test(ifa))
    return `ifa:${ifa.toLowerCase()}`;
  return undefined;
}

const WIDGET_ID = /^[A-Za-z0-9_-]{16,64}$/;
/** The widget's first-party id (`u`, kept in the browser's localStorage), when it looks like one the widget made. */
export const widgetUserId = (raw: string | null): string | undefined =>
  raw !== null && WIDGET_ID.test(raw) ? `w:${raw}` : undefined;

/**
 * The context of an OpenRTB request: the country from `device.geo.country` (alpha-3 or alpha-2), else
 * from `device.ip` or `device.ipv6`; device type and OS as the partner says them, else from
 * `device.sua` (OpenRTB 2.6), else from `device.ua`; the browser from `device.sua`, else `device.ua`; language cut to two letters; our site looked up.
 */
// eslint-disable-next-line @typescript-eslint/max-params -- hot path: builds the context of every OpenRTB /bid request
export function openRtbContext(
  request: BidRequest,
  index: EngineIndex,
  partnerId: number,
  ts: number,
  viewer?: Viewer,
  privacy: PrivacyBar | undefined = privacyBar(request),
  source = '',
): RequestContext {
  const d = request.device;
  const siteId = request.site?.id;
  const ua = userAgentFacts(d?.ua ?? '');
  // The structured user agent (OpenRTB 2.6) is the browser's Client Hints: exact where `ua` is frozen or reduced.
  const sua = structuredUserAgentFacts(d?.sua);
  return withVerdict({
    index,
    ts,
    auctionId: request.id,
    partnerId,
    country: countryNamed(d?.geo?.country) ?? countryOfAddress(d?.ip ?? '') ?? countryOfAddress(d?.ipv6 ?? ''),
    language: d?.language?.slice(0, 2).toLowerCase(),
    device: deviceTypeOf(d?.devicetype) ?? sua.device ?? ua.device,
    os: d?.os ? (osFamilyOfName(d.os) ?? 'other') : (sua.os ?? ua.os),
    browser: sua.browser ?? ua.browser,
    connection: connectionTypeOf(d?.connectiontype),
    usd: !request.cur || request.cur.length === 0 || request.cur.includes('USD'),
    bcat: request.bcat,
    badv: request.badv,
    // A request naming one of our sites (site.id) is served only if that site is approved.
    ownSite: siteId && OWN_SITE_ID.test(siteId) ? index.sites.get(Number(siteId)) : undefined,
    siteDomain: request.site?.domain ?? request.app?.domain,
    source,
    rejected: undefined,
    surface: 'openrtb',
    integration: 'openrtb',
    ipPrefix: ipPrefixOf(request.device?.ip ?? ''),
    uaHash: uaHashOf(request.device?.ua ?? ''),
    test: request.test === 1,
    // A partner may leave the user agent out; one it sends that is a bot's gets no bid, unless the request is a
    // test (`test: 1`): an integration test's placeholder user agent (`test-user-agent`) reads as a bot, and a
    // test request is answered but never charged or counted (docs/openrtb.md, test requests).
    bot: request.test !== 1 && request.device?.ua !== undefined && isBotUserAgent(request.device.ua),
    // A partner's request is judged on what the partner says; page and request-rate checks are for our own zones.
    pageHost: undefined,
    flood: undefined,
    // Barred by a privacy signal: the user is not looked up, counted or named in tickets.
    viewer: privacy ? undefined : viewer,
    privacy,
  });
}

/** A partner's `device.geo.country` as a lower-case alpha-2 code; undefined when it names no country. */
function countryNamed(geo: string | undefined): string | undefined {
  if (!geo) return undefined;
  const cc = geo.length === 3 ? alpha3ToAlpha2(geo) : geo.toLowerCase();
  return cc !== undefined && COUNTRY_CODES.has(cc) ? cc : undefined;
}

/** An OpenRTB impression: its slots, floor, and our zone when `tagid` names one. */
export function openRtbImp(req: RequestContext, imp: Imp): ImpContext {
  const zone = imp.tagid ? req.index.zones.get(imp.tagid) : undefined;
  const z = zone?.zone;
  const site = req.ownSite;
  const controls = zone ? zone.controls : site && req.index.siteControls.get(site.id);
  const vastVersion = imp.video ? videoVastVersion(imp.video) : undefined;
  return {
    impId: imp.id,
    nativeAssets: imp.native ? parseNativeRequest(imp.native.request) : undefined,
    slots: slotsOf(imp, vastVersion !== undefined),
    vastVersion,
    // Our publisher's floor holds for a partner's request too: the higher of the two.
    floorMicroCents: Math.max(partnerFloorMicroCents(imp.bidfloor ?? 0), controls?.floorMicroCents ?? 0),
    floorCurrency: imp.bidfloorcur,
    zone,
    inventory: z
      ? { publisherId: z.publisher_id, siteId: z.site_id, zoneId: z.id, source: req.source }
      : { publisherId: site?.publisher_id ?? 0, siteId: site?.id ?? 0, zoneId: 0, source: req.source },
    controls,
    country: req.country,
    language: req.language,
    device: req.device,
    os: req.os,
    browser: req.browser,
    connection: req.connection,
    bcat: req.bcat,
    badv: req.badv,
    ts: req.ts,
    viewer: req.viewer,
    restricted: req.privacy !== undefined,
    deals: imp.pmp?.deals?.length ? matchedDeals(req, imp, controls?.floorMicroCents ?? 0) : NO_DEALS,
    privateAuction: imp.pmp?.private_auction === 1,
    minDuration: imp.video?.minduration || undefined,
    maxDuration: imp.video?.maxduration || undefined,
  };
}

const NO_DEALS: readonly MatchedDeal[] = [];

/**
 * The imp's deals that we hold, that this partner may offer, and whose floor currency (if said) is USD;
 * the floor is the highest of the deal's, the request's deal `bidfloor` and our publisher's.
 */
function matchedDeals(req: RequestContext, imp: Imp, publisherFloor: number): readonly MatchedDeal[] {
  const out: MatchedDeal[] = [];
  for (const d of imp.pmp?.deals ?? []) {
    const deal = req.index.deals.get(d.id);
    if (!deal || !deal.partners.has(req.partnerId) || (d.bidfloorcur !== undefined && d.bidfloorcur !== 'USD'))
      continue;
    if (out.some((m) => m.id === deal.id)) continue;
    out.push({
      id: deal.id,
      floorMicroCents: Math.max(deal.floorMicroCents, partnerFloorMicroCents(d.bidfloor ?? 0), publisherFloor),
      entry: deal,
    });
  }
  // Best floor first (then by id, so every engine tries them in the same order).
  return out.sort((a, b) => b.floorMicroCents - a.floorMicroCents || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/**
 * A video player as a visitor. Players (TVs, server-side stitchers) may send no user agent at all: only a
 * bot's is refused. The player's page is not the publisher's (players fetch VAST from anywhere): no page check.
 */
export const playerVisitor = (v: Visitor, userAgent: string | undefined): Visitor => ({
  ...v,
  bot: v.bot && userAgent !== '',
  pageHost: undefined,
});

/** A visitor of one of our zones (widget, VAST player, push subscriber): no partner, USD; the zone's floor is in its imp. */
// eslint-disable-next-line @typescript-eslint/max-params -- hot path: builds the context of every /imp, /vast and push request
export function visitorContext(
  index: EngineIndex,
  v: Visitor,
  ts: number,
  surface: TicketSurface,
  flood?: RequestFlood,
  viewer?: Viewer,
): RequestContext {
  return withVerdict({
    index,
    ts,
    auctionId: undefined,
    partnerId: 0,
    country: v.country,
    language: v.language,
    device: v.device,
    os: v.os,
    browser: v.browser,
    connection: undefined,
    usd: true,
    bcat: undefined,
    badv: undefined,
    ownSite: undefined,
    siteDomain: undefined,
    source: '',
    rejected: undefined,
    surface,
    integration: surface,
    ipPrefix: v.ipPrefix,
    uaHash: v.uaHash,
    test: false,
    bot: v.bot,
    pageHost: v.pageHost,
    flood,
    // Barred by a privacy signal: the user is not looked up, counted, or made a member of an audience.
    viewer: v.privacy ? undefined : viewer,
    privacy: v.privacy,
  });
}

/**
 * A partner's `bidfloor` (CPM USD) in micro-cents, rounded up so that no bid is below it, but after
 * dropping the binary noise of the product (1.1 x 100 000 is 110000.00000000001, not 110 001).
 */
const partnerFloorMicroCents = (usd: number): number => Math.ceil(Math.round(usd * 100_000_000) / 1_000);

/** The one impression of a zone request. */
export function zoneImp(req: RequestContext, entry: ZoneEntry): ImpContext {
  const z: StoredZone = entry.zone;
  return {
    impId: undefined,
    nativeAssets: undefined,
    slots: [slotFor(z.format, z.banner_width, z.banner_height)],
    // A video zone's player names its version on the VAST URL (routes/vast-serve.ts sets it).
    vastVersion: undefined,
    floorMicroCents: entry.controls.floorMicroCents,
    floorCurrency: undefined,
    zone: entry,
    inventory: { publisherId: z.publisher_id, siteId: z.site_id, zoneId: z.id, source: entry.source },
    controls: entry.controls,
    country: req.country,
    language: req.language,
    device: req.device,
    os: req.os,
    browser: req.browser,
    connection: req.connection,
    bcat: undefined,
    badv: undefined,
    ts: req.ts,
    viewer: req.viewer,
    restricted: req.privacy !== undefined,
    deals: NO_DEALS,
    privateAuction: false,
    minDuration: undefined,
    maxDuration: undefined,
  };
}
