import type { Creative } from '@adnet/schemas/api';
import type { EngineEvent } from '@adnet/schemas/events';
import { alpha3ToAlpha2 } from '@adnet/schemas/geo';
import type { Bid, BidRequest, Imp } from '@adnet/schemas/openrtb';
import { deviceTypeOf } from '@adnet/schemas/openrtb';
import { randomUUID } from 'node:crypto';
import { FILTERS } from '../auction/filters.ts';
import type { ImpContext } from '../auction/filters.ts';
import { runImpAuction } from '../auction/run-auction.ts';
import type { BidBudget } from '../budget/budget-slices.ts';
import type { Candidate } from '../index/candidate.ts';
import { candidateListsFor, partnerFor } from '../index/engine-index.ts';
import type { EngineIndex } from '../index/engine-index.ts';
import { bannerAdm, nativeAdm, vastAdm } from '../openrtb/ad-markup.ts';
import { parseBidRequest } from '../openrtb/parse-request.ts';
import type { PartnerLimiter } from '../partners/partner-limiter.ts';
import { encodeTicket } from '../tracking/signed-token.ts';
import type { EngineReply, EngineRequest } from '../transport/http-adapter.ts';
import { json } from '../transport/http-adapter.ts';

export interface BidDeps {
  index: () => EngineIndex | undefined;
  budget: BidBudget;
  limiter: PartnerLimiter;
  emit: (e: EngineEvent) => void;
  secret: string;
  baseUrl: string;
  engineId: string;
  auctionTimeoutMs: number;
  /** Parsing plus auctions of one request, in seconds. */
  observeAuction?: (seconds: number) => void;
  now?: () => number;
}

const NO_BID: EngineReply = { status: 204 };

/** The slots an impression can be filled from (see slotFor in the index). */
function slotsOf(imp: Imp): string[] {
  const slots: string[] = [];
  const b = imp.banner;
  if (b) {
    if (b.w && b.h) slots.push(`banner:${b.w}x${b.h}`);
    for (const f of b.format ?? []) {
      const s = `banner:${f.w}x${f.h}`;
      if (!slots.includes(s)) slots.push(s);
    }
  }
  if (imp.native) slots.push('native');
  if (imp.video) slots.push('video');
  return slots;
}

function markup(imp: Imp, c: Creative, clickUrl: string, impressionUrl: string, bidId: string): string {
  if (c.format === 'video' || c.format === 'floating_video') return vastAdm(c, { clickUrl, impressionUrl }, bidId);
  if (c.format === 'native' && imp.native) return nativeAdm(c, { clickUrl, impressionUrl });
  return bannerAdm(c, { clickUrl, impressionUrl });
}

/** POST /openrtb/bid: partner check, rate limit, one auction per imp, deadline. */
export function bidHandler(deps: BidDeps) {
  const now = deps.now ?? (() => performance.now());
  return (req: EngineRequest): EngineReply => {
    const started = now();
    const index = deps.index();
    if (!index) return json(503, { error: 'Engine is loading its index', code: 'unavailable' }, { 'retry-after': '1' });
    const entry = partnerFor(index, req.ip);
    if (!entry) return json(403, { error: `Address ${req.ip} is not on any partner's allow-list`, code: 'forbidden' });
    const partner = entry.partner;
    if (!deps.limiter.take(partner.id, partner.qps_limit)) return json(429, { error: 'Partner QPS limit exceeded', code: 'rate_limited' }, { 'retry-after': '1' });
    const version = req.headers['x-openrtb-version'] ?? '';
    if (!/^2\.5(\.\d+)?$/.test(version.trim())) return json(400, { error: 'Send header x-openrtb-version: 2.5', code: 'bad_request' });
    const parsed = parseBidRequest(req.body);
    if (!parsed.ok) return json(400, { error: parsed.reason, code: 'bad_request' });
    const request: BidRequest = parsed.request;

    const deadline = Math.min(request.tmax ?? deps.auctionTimeoutMs, deps.auctionTimeoutMs);
    const geo = request.device?.geo?.country;
    const country = geo ? (geo.length === 3 ? alpha3ToAlpha2(geo) : geo.toLowerCase()) : undefined;
    const language = request.device?.language?.slice(0, 2).toLowerCase();
    const device = deviceTypeOf(request.device?.devicetype);
    const usdOk = !request.cur || request.cur.length === 0 || request.cur.includes('USD');
    const ts = Date.now();
    // A request naming one of our sites (site.id) is served only if that site is approved.
    const ownSite = request.site?.id && /^\d{1,10}$/.test(request.site.id) ? index.sites.get(Number(request.site.id)) : undefined;
    const base = { ts, engine: deps.engineId, auction_id: request.id, partner_id: partner.id, country, device, site_domain: request.site?.domain };

    const bids: Bid[] = [];
    const taken: { c: Candidate; price: number }[] = [];
    for (const imp of request.imp) {
      const floorCurOk = !imp.bidfloorcur || imp.bidfloorcur === 'USD';
      if (!usdOk || !floorCurOk) {
        deps.emit({ id: randomUUID(), type: 'nobid', imp_id: imp.id, reason: 'currency', ...base });
        continue;
      }
      // imp.tagid naming one of our zones: it must be active on an approved site.
      const zoneEntry = imp.tagid ? index.zones.get(imp.tagid) : undefined;
      if ((zoneEntry && !zoneEntry.serving) || (ownSite && ownSite.status !== 'approved')) {
        deps.emit({ id: randomUUID(), type: 'nobid', imp_id: imp.id, reason: zoneEntry && !zoneEntry.serving ? 'zone_not_serving' : 'site_not_approved', ...base });
        continue;
      }
      const zone = zoneEntry?.zone;
      const inventory = zone
        ? { publisherId: zone.publisher_id, siteId: zone.site_id, zoneId: zone.id }
        : { publisherId: ownSite?.publisher_id ?? 0, siteId: ownSite?.id ?? 0, zoneId: 0 };
      const ctx: ImpContext = { language, device, bcat: request.bcat, badv: request.badv, floorMicroCents: Math.ceil((imp.bidfloor ?? 0) * 100_000) };
      const lists: (readonly Candidate[])[] = [];
      for (const slot of slotsOf(imp)) candidateListsFor(index, slot, country, lists);
      const outcome = runImpAuction(lists, ctx, FILTERS, deps.budget);
      if (!outcome.won) {
        deps.emit({ id: randomUUID(), type: 'nobid', imp_id: imp.id, reason: outcome.reason, ...base });
        continue;
      }
      const c = outcome.winner;
      const bidId = randomUUID();
      const ticket = encodeTicket(deps.secret, {
        bidId, campaignId: c.campaignId, advertiserId: c.advertiserId, creativeId: c.creativeId,
        priceMicroCents: outcome.priceMicroCents, issuedAt: Math.floor(ts / 1000), engine: deps.engineId, partnerId: partner.id,
        country: country ?? '', device: device ?? '', ...inventory,
      });
      const clickUrl = `${deps.baseUrl}/c/${ticket}/${c.creative.tracking_token}`;
      const impressionUrl = `${deps.baseUrl}/openrtb/imptracker/${ticket}`;
      const bid: Bid = {
        id: bidId,
        impid: imp.id,
        price: outcome.priceMicroCents / 100_000,
        adm: markup(imp, c.creative, clickUrl, impressionUrl, bidId),
        nurl: `${deps.baseUrl}/openrtb/win/${ticket}?price=\${AUCTION_PRICE}`,
        crid: String(c.creativeId),
        cid: String(c.campaignId),
        adomain: c.adomain ? [c.adomain] : [],
      };
      if (c.format === 'banner') {
        bid.w = c.creative.image_width ?? undefined;
        bid.h = c.creative.image_height ?? undefined;
      }
      bids.push(bid);
      taken.push({ c, price: outcome.priceMicroCents });
      const where = inventory.siteId ? { publisher_id: inventory.publisherId, site_id: inventory.siteId, zone_id: inventory.zoneId } : {};
      deps.emit({ id: randomUUID(), type: 'bid', imp_id: imp.id, bid_id: bidId, ...where, campaign_id: c.campaignId, creative_id: c.creativeId, advertiser_id: c.advertiserId, price_micro_cents: outcome.priceMicroCents, ...base });
    }

    const elapsed = now() - started;
    deps.observeAuction?.(elapsed / 1000);
    if (elapsed > deadline) {
      // Too late to be useful to the partner: give the budget back and say so.
      for (const t of taken) deps.budget.giveBack(t.c, t.price);
      deps.emit({ id: randomUUID(), type: 'nobid', reason: 'deadline', ...base });
      return NO_BID;
    }
    if (bids.length === 0) return NO_BID;
    return json(200, { id: request.id, seatbid: [{ seat: 'adnet', bid: bids }], cur: 'USD' });
  };
}
