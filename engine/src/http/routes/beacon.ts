import { impressionCharge, settleTicket } from '../../auction/settle.ts';
import { ticketExpired } from '../../auction/ticket-age.ts';
import { settlePorts } from '../../context.ts';
import type { EngineContext } from '../../context.ts';
import { makeEvent, ticketFacts } from '../../events/make-event.ts';
import { decodeTicket } from '../../tracking/signed-token.ts';
import { ipPrefixOf, uaHashOf } from '../../tracking/viewer.ts';
import { errorReply } from '../adapt.ts';
import type { EngineReply, EngineRequest } from '../adapt.ts';
import { PIXEL_REPLY } from './pixel.ts';
import type { OfflineAnswer } from '../../journal/journaled-route.ts';

/**
 * GET /b/<ticket>[?e=viewable]: the widget's proof that a served ad was rendered (or, with
 * `e=viewable`, that it was at least half in view for a second). The render beacon is the impression:
 * counted and charged once, and only from the network and browser the ad was served to, within its
 * age limit; anything else is recorded apart and charged nothing. An ad requested and never rendered
 * costs nothing: its budget hold goes back to the pool.
 */
export function beaconRoute(ctx: EngineContext) {
  return async (req: EngineRequest, now = Date.now(), attempt?: string): Promise<EngineReply> => {
    const ticket = decodeTicket(ctx.secret, req.params[0] ?? '');
    if (!ticket || ticket.surface !== 'widget') return UNKNOWN;
    const fields = { ts: now, engine: ctx.engineId, ...ticketFacts(ticket) };
    const viewable = new URLSearchParams(req.query).get('e') === 'viewable';
    const sameViewer = ipPrefixOf(req.ip) === ticket.ipPrefix && uaHashOf(req.headers['user-agent'] ?? '') === ticket.uaHash;
    const refused = ticketExpired(ticket, 'beacon', now) ? 'expired' : sameViewer ? undefined : 'mismatch';
    if (refused) {
      if (!viewable) ctx.emit(makeEvent('uncounted', { ...fields, partner_id: 0, of: 'impression', reason: refused }));
      return PIXEL_REPLY;
    }
    if (viewable) {
      // Viewable is a kind of counted impression: never more of them than of impressions.
      const rendered = (await ctx.counters.countedAt('imp', ticket.bidId)) !== undefined;
      if (rendered && (await ctx.counters.countOnce('imp', `${ticket.bidId}:viewable`, now, attempt))) ctx.emit(makeEvent('viewable', fields));
      return PIXEL_REPLY;
    }
    if (await ctx.counters.countOnce('imp', ticket.bidId, now, attempt)) {
      // CPC campaigns pay for clicks; a campaign no longer known is charged nothing.
      const bidType = ctx.index()?.campaigns.get(ticket.campaignId)?.bid_type ?? 'cpc';
      const event = makeEvent('impression', {
        ...fields,
        price_micro_cents: ticket.priceMicroCents,
        charge_nano: impressionCharge(bidType, ticket.priceMicroCents),
      });
      // An impression recorded as uncounted (its campaign stopped, its budget or balance ran out) has no viewable one either.
      if (!(await settleTicket(settlePorts(ctx), event, ticket, now))) await ctx.counters.countOnce('imp', `${ticket.bidId}:viewable`);
    }
    return PIXEL_REPLY;
  };
}

const UNKNOWN = errorReply('not_found', 'Unknown impression', { 'access-control-allow-origin': '*' });

/** The beacon's answer while Redis is away: the pixel, for a widget ticket that checks out (journaled). */
export function beaconOffline(ctx: EngineContext): OfflineAnswer {
  return (req) => {
    const ticket = decodeTicket(ctx.secret, req.params[0] ?? '');
    return ticket?.surface === 'widget' ? { reply: PIXEL_REPLY, journal: true } : { reply: UNKNOWN, journal: false };
  };
}
