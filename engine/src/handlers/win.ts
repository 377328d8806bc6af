import { budgetDay } from '@adnet/schemas/budget-day';
import type { EngineEvent } from '@adnet/schemas/events';
import { cpmMicroCentsToNanoPerImpression } from '@adnet/schemas/money';
import { countedKey } from '@adnet/schemas/redis-keys';
import type { Redis } from 'ioredis';
import { randomUUID } from 'node:crypto';
import type { BudgetSlices } from '../budget/budget-slices.ts';
import { decodeTicket } from '../tracking/signed-token.ts';
import type { BidTicket } from '../tracking/signed-token.ts';
import type { EngineReply, EngineRequest } from '../transport/http-adapter.ts';
import { json } from '../transport/http-adapter.ts';

export interface TrackingDeps {
  redis: Redis;
  budget: BudgetSlices;
  emit: (e: EngineEvent) => void;
  secret: string;
  engineId: string;
}

/** Win notices and pixels are honoured for a week after the bid. */
const COUNT_TTL_S = 7 * 86_400;
const PIXEL = Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64');

const inventory = (t: BidTicket) => (t.zoneId || t.siteId ? { publisher_id: t.publisherId, site_id: t.siteId, zone_id: t.zoneId } : {});

/** Clearing price from `${AUCTION_PRICE}`: CPM in USD, never above our bid; an unfilled macro means our bid. */
export function clearingMicroCents(query: string, ticket: BidTicket): number | undefined {
  const raw = new URLSearchParams(query).get('price');
  if (raw === null || raw === '' || raw.includes('AUCTION_PRICE')) return ticket.priceMicroCents;
  if (!/^\d+(\.\d+)?$/.test(raw)) return undefined;
  return Math.min(Math.round(Number(raw) * 100_000), ticket.priceMicroCents);
}

/** GET /openrtb/win/<ticket>?price=${AUCTION_PRICE}: counts a win once and charges the clearing price. */
export function winHandler(deps: TrackingDeps) {
  return async (req: EngineRequest): Promise<EngineReply> => {
    const ticket = decodeTicket(deps.secret, req.params[0] ?? '');
    if (!ticket) return json(403, { error: 'Invalid or forged win notice', code: 'forbidden' });
    const price = clearingMicroCents(req.query, ticket);
    if (price === undefined) return json(400, { error: 'price must be a non-negative decimal (CPM in USD)', code: 'bad_request' });
    const first = await deps.redis.set(countedKey('win', ticket.bidId), '1', 'EX', COUNT_TTL_S, 'NX');
    if (first === 'OK') {
      const nano = cpmMicroCentsToNanoPerImpression(price);
      deps.budget.recordSpend(ticket.campaignId, ticket.advertiserId, budgetDay(ticket.issuedAt * 1000), nano, ticket.engine);
      deps.emit({
        id: randomUUID(), type: 'win', ts: Date.now(), engine: deps.engineId, bid_id: ticket.bidId, partner_id: ticket.partnerId,
        campaign_id: ticket.campaignId, creative_id: ticket.creativeId, advertiser_id: ticket.advertiserId, price_micro_cents: price, charge_nano: nano,
        country: ticket.country || undefined, device: ticket.device || undefined,
        ...inventory(ticket),
      });
    }
    return json(200, { ok: true, counted: first === 'OK' });
  };
}

/** GET /openrtb/imptracker/<ticket>: records a VAST impression once; always answers with a pixel for a valid ticket. */
export function impTrackerHandler(deps: TrackingDeps) {
  return async (req: EngineRequest): Promise<EngineReply> => {
    const ticket = decodeTicket(deps.secret, req.params[0] ?? '');
    if (!ticket) return json(404, { error: 'Unknown impression', code: 'not_found' });
    const first = await deps.redis.set(countedKey('imp', ticket.bidId), '1', 'EX', COUNT_TTL_S, 'NX');
    if (first === 'OK') {
      // On our own video zones (partner 0) the started ad is the impression that counts and is charged;
      // for OpenRTB bids the win notice already did both.
      const own = ticket.partnerId === 0;
      const charge = own ? cpmMicroCentsToNanoPerImpression(ticket.priceMicroCents) : 0;
      if (charge) deps.budget.recordSpend(ticket.campaignId, ticket.advertiserId, budgetDay(ticket.issuedAt * 1000), charge, ticket.engine);
      deps.emit({
        id: randomUUID(), type: own ? 'impression' : 'imp', ts: Date.now(), engine: deps.engineId, bid_id: ticket.bidId, partner_id: ticket.partnerId,
        campaign_id: ticket.campaignId, creative_id: ticket.creativeId, advertiser_id: ticket.advertiserId, charge_nano: charge,
        country: ticket.country || undefined, device: ticket.device || undefined,
        ...inventory(ticket),
      });
    }
    return { status: 200, headers: { 'content-type': 'image/gif', 'cache-control': 'no-store' }, body: PIXEL };
  };
}

const VAST_EVENT = /^(start|firstQuartile|midpoint|thirdQuartile|complete|error)$/;

/** GET /t/vast/<event>/<ticket>[?code=N]: a player's playback event or VAST error, recorded once per ad and event. */
export function vastTrackingHandler(deps: TrackingDeps) {
  return async (req: EngineRequest): Promise<EngineReply> => {
    const event = req.params[0] ?? '';
    const ticket = decodeTicket(deps.secret, req.params[1] ?? '');
    if (!ticket || !VAST_EVENT.test(event)) return json(404, { error: 'Unknown tracking link', code: 'not_found' });
    const code = /^\d{3}$/.exec(new URLSearchParams(req.query).get('code') ?? '')?.[0];
    const reason = event === 'error' ? `error:${code ?? 'unknown'}` : event;
    if ((await deps.redis.set(countedKey('imp', `${ticket.bidId}:${reason}`), '1', 'EX', COUNT_TTL_S, 'NX')) === 'OK') {
      deps.emit({
        id: randomUUID(), type: 'vast', ts: Date.now(), engine: deps.engineId, bid_id: ticket.bidId, reason, campaign_id: ticket.campaignId,
        creative_id: ticket.creativeId, advertiser_id: ticket.advertiserId, ...inventory(ticket),
      });
    }
    return { status: 200, headers: { 'content-type': 'image/gif', 'cache-control': 'no-store', 'access-control-allow-origin': '*' }, body: PIXEL };
  };
}
