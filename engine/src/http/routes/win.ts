import { cpmMicroCentsToNanoPerImpression } from '@adnet/schemas/money';
import { exchangePriceMicroCents } from '../../auction/price.ts';
import { impressionCharge, settleTicket } from '../../auction/settle.ts';
import { ticketExpired } from '../../auction/ticket-age.ts';
import { settlePorts } from '../../context.ts';
import type { EngineContext } from '../../context.ts';
import { makeEvent, ticketFacts } from '../../events/make-event.ts';
import { decodeTicket } from '../../tracking/signed-token.ts';
import { errorReply, json } from '../adapt.ts';
import type { EngineReply, EngineRequest } from '../adapt.ts';
import { PIXEL_REPLY } from './pixel.ts';
import { isDemandToken } from '../../demand/demand-ticket.ts';
import { demandImpression } from './demand.ts';
import { decodeDemandTicket } from '../../demand/demand-ticket.ts';
import type { OfflineAnswer } from '../../journal/journaled-route.ts';

const VAST_EVENT = /^(start|firstQuartile|midpoint|thirdQuartile|complete|error|viewable)$/;

/**
 * GET /openrtb/win/<ticket>?price=${AUCTION_PRICE}: counts a win once and charges the clearing price;
 * GET /openrtb/bill/<ticket>?price=${AUCTION_PRICE} (`use` 'bill'): the same for a partner's billing
 * notice. For a partner that bills by billing notices, the win notice counts nothing: the billing
 * notice is the impression. Both count under one once-only mark, so an ad is charged once whichever
 * arrives.
 */
export function winRoute(ctx: EngineContext, use: 'win' | 'bill' = 'win') {
  return async (req: EngineRequest, now = Date.now(), attempt?: string): Promise<EngineReply> => {
    const ticket = decodeTicket(ctx.secret, req.params[0] ?? '');
    if (!ticket) return forged(use);
    if (use === 'win' && billsByBurl(ctx, ticket.partnerId)) return json(200, { ok: true, counted: false });
    const price = exchangePriceMicroCents(new URLSearchParams(req.query).get('price'), ticket.priceMicroCents);
    if (price === undefined) return BAD_PRICE;
    const fields = { ts: now, engine: ctx.engineId, partner_id: ticket.partnerId, ...ticketFacts(ticket) };
    if (ticketExpired(ticket, use, now)) {
      ctx.emit(makeEvent('uncounted', { ...fields, of: 'win', reason: 'expired' }));
      return json(200, { ok: true, counted: false });
    }
    const first = await ctx.counters.countOnce('win', ticket.bidId, now, attempt);
    // A test request's win is recorded apart and never charged.
    if (first && ticket.test) ctx.emit(makeEvent('uncounted', { ...fields, of: 'win', reason: 'test' }));
    let counted = false;
    if (first && !ticket.test) {
      const event = makeEvent('win', { ...fields, price_micro_cents: price, charge_nano: cpmMicroCentsToNanoPerImpression(price) });
      counted = await settleTicket(settlePorts(ctx), event, ticket, now);
    }
    return json(200, { ok: true, counted });
  };
}

const forged = (use: 'win' | 'bill'): EngineReply =>
  errorReply('forbidden', use === 'win' ? 'Invalid or forged win notice' : 'Invalid or forged billing notice');
const BAD_PRICE = errorReply('bad_request', 'price must be a non-negative decimal (CPM in USD)');

/**
 * A win or billing notice while Redis is away: acknowledged and journaled once its ticket and price check out;
 * `counted` is unknown until the replay, so the answer says `journaled` instead.
 */
export function winOffline(ctx: EngineContext, use: 'win' | 'bill' = 'win'): OfflineAnswer {
  return (req) => {
    const ticket = decodeTicket(ctx.secret, req.params[0] ?? '');
    if (!ticket) return { reply: forged(use), journal: false };
    if (exchangePriceMicroCents(new URLSearchParams(req.query).get('price'), ticket.priceMicroCents) === undefined) return { reply: BAD_PRICE, journal: false };
    return { reply: json(200, { ok: true, counted: false, journaled: true }), journal: true };
  };
}

/** A VAST impression pixel while Redis is away: the pixel, journaled, for a ticket that checks out. */
export function impTrackerOffline(ctx: EngineContext): OfflineAnswer {
  return (req) => {
    const token = req.params[0] ?? '';
    const valid = isDemandToken(token) ? decodeDemandTicket(ctx.secret, token) !== undefined : decodeTicket(ctx.secret, token) !== undefined;
    return valid ? { reply: PIXEL_REPLY, journal: true } : { reply: errorReply('not_found', 'Unknown impression'), journal: false };
  };
}

/** A VAST playback event while Redis is away: the pixel, journaled, for a known event on a ticket that checks out. */
export function vastTrackingOffline(ctx: EngineContext): OfflineAnswer {
  return (req) => {
    const valid = VAST_EVENT.test(req.params[0] ?? '') && decodeTicket(ctx.secret, req.params[1] ?? '') !== undefined;
    return valid ? { reply: PIXEL_REPLY, journal: true } : { reply: errorReply('not_found', 'Unknown tracking link'), journal: false };
  };
}

const billsByBurl = (ctx: EngineContext, partnerId: number): boolean =>
  ctx.index()?.partners.find((p) => p.partner.id === partnerId)?.partner.billing_notice === 'burl';

/** GET /openrtb/imptracker/<ticket>: records a VAST impression once; always answers with a pixel for a valid ticket. */
export function impTrackerRoute(ctx: EngineContext) {
  return async (req: EngineRequest, now = Date.now(), attempt?: string): Promise<EngineReply> => {
    // A demand partner's won impression (demand/): its own ticket.
    if (isDemandToken(req.params[0] ?? '')) return demandImpression(ctx, req.params[0] ?? '', now, attempt);
    const ticket = decodeTicket(ctx.secret, req.params[0] ?? '');
    if (!ticket) return errorReply('not_found', 'Unknown impression');
    // On our own video zones (partner 0) the started ad is the impression that counts, charged to CPM
    // campaigns (CPC ones pay for clicks; a campaign no longer known is charged nothing); for OpenRTB
    // bids the win notice already did both.
    const own = ticket.partnerId === 0;
    const fields = { ts: now, engine: ctx.engineId, partner_id: ticket.partnerId, ...ticketFacts(ticket) };
    if (ticketExpired(ticket, 'pixel', now)) {
      ctx.emit(makeEvent('uncounted', { ...fields, of: own ? 'impression' : 'imp', reason: 'expired' }));
      return PIXEL_REPLY;
    }
    if (await ctx.counters.countOnce('imp', ticket.bidId, now, attempt)) {
      if (ticket.test) ctx.emit(makeEvent('uncounted', { ...fields, of: 'imp', reason: 'test' }));
      else if (!own) ctx.emit(makeEvent('imp', { ...fields, charge_nano: 0 }));
      else {
        const bidType = ctx.index()?.campaigns.get(ticket.campaignId)?.bid_type ?? 'cpc';
        const event = makeEvent('impression', { ...fields, charge_nano: impressionCharge(bidType, ticket.priceMicroCents) });
        // An impression recorded as uncounted has no viewable one either.
        if (!(await settleTicket(settlePorts(ctx), event, ticket, now))) await ctx.counters.countOnce('imp', `${ticket.bidId}:viewable`);
      }
    }
    return PIXEL_REPLY;
  };
}

/**
 * GET /t/vast/<event>/<ticket>[?code=N]: a player's playback event or VAST error, recorded once per ad
 * and event; `viewable` (the VAST ViewableImpression) is the video's viewable impression.
 */
export function vastTrackingRoute(ctx: EngineContext) {
  return async (req: EngineRequest, now = Date.now(), attempt?: string): Promise<EngineReply> => {
    const event = req.params[0] ?? '';
    const ticket = decodeTicket(ctx.secret, req.params[1] ?? '');
    if (!ticket || !VAST_EVENT.test(event)) return errorReply('not_found', 'Unknown tracking link');
    if (event === 'viewable') {
      // A viewable impression is a kind of counted one: only after the Impression pixel, once.
      const started = (await ctx.counters.countedAt('imp', ticket.bidId)) !== undefined;
      if (started && (await ctx.counters.countOnce('imp', `${ticket.bidId}:viewable`, now, attempt))) {
        ctx.emit(makeEvent('viewable', { ts: now, engine: ctx.engineId, ...ticketFacts(ticket) }));
      }
      return PIXEL_REPLY;
    }
    const code = /^\d{3}$/.exec(new URLSearchParams(req.query).get('code') ?? '')?.[0];
    const reason = event === 'error' ? `error:${code ?? 'unknown'}` : event;
    if (await ctx.counters.countOnce('imp', `${ticket.bidId}:${reason}`, now, attempt)) {
      const { country: _c, device: _d, os: _o, browser: _b, ...facts } = ticketFacts(ticket);
      ctx.emit(makeEvent('vast', { ts: now, engine: ctx.engineId, reason, ...facts }));
    }
    return PIXEL_REPLY;
  };
}
